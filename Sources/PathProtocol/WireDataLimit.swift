// SPDX-License-Identifier: Apache-2.0
import PathModel

/// io.pathmond.DataLimit on the wire.
public struct WireDataLimit: Codable, Sendable, Hashable {
    public var limitBytes: UInt64
    public var warningPercent: Int
    /// "monthly:DAY", "weekly:DAY" or "daily".
    public var cycle: String
    public var usedBytes: UInt64
    /// The cycle's first day and the day it resets, YYYY-MM-DD.
    public var cycleStart: String
    public var cycleEnd: String
    /// normal, warning or exceeded.
    public var level: String

    public init(_ status: DataLimitStatus) {
        limitBytes = status.limit.bytes
        warningPercent = status.limit.warningPercent
        cycle = status.limit.cycle.description
        usedBytes = status.used
        cycleStart = status.cycle.lowerBound.description
        cycleEnd = status.cycle.upperBound.description
        level = status.level.name
    }

    /// The model value; throws if a field holds a value the protocol does not define.
    public func status() throws(WireFormatError) -> DataLimitStatus {
        guard let billing = BillingCycle(cycle) else { throw .unknownValue(field: "cycle", value: cycle) }
        guard let start = CalendarDay(text: cycleStart) else {
            throw .unknownValue(field: "cycleStart", value: cycleStart)
        }
        guard let end = CalendarDay(text: cycleEnd), start <= end else {
            throw .unknownValue(field: "cycleEnd", value: cycleEnd)
        }
        guard limitBytes > 0 else { throw .unknownValue(field: "limitBytes", value: "\(limitBytes)") }
        return DataLimitStatus(
            limit: DataLimit(bytes: limitBytes, warningPercent: warningPercent, cycle: billing), used: usedBytes,
            cycle: start..<end)
    }
}

extension DataLimitStatus.Level {
    /// The wire's and the CLI's spelling.
    public var name: String {
        switch self {
        case .normal: "normal"
        case .warning: "warning"
        case .exceeded: "exceeded"
        }
    }
}

extension CalendarDay {
    /// A day written YYYY-MM-DD (as `description` writes it); nil for anything else.
    public init?(text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]), (1...12).contains(month),
            (1...CalendarDay.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        self.init(year: year, month: month, day: day)
    }
}

extension Methods {
    /// io.pathmond.SetDataLimit parameters: exactly one of `interface` and `key`; without `limitBytes`, the limit
    /// is cleared (and the other two must be absent).
    public struct SetDataLimitParameters: Codable, Sendable, Hashable {
        public var interface: String?
        public var key: String?
        public var limitBytes: UInt64?
        public var warningPercent: Int?
        public var cycle: String?
        public init(
            interface: String? = nil, key: String? = nil, limitBytes: UInt64? = nil, warningPercent: Int? = nil,
            cycle: String? = nil
        ) {
            self.interface = interface
            self.key = key
            self.limitBytes = limitBytes
            self.warningPercent = warningPercent
            self.cycle = cycle
        }

        /// The limit asked for: nil to clear; throws the parameter that is out of range.
        public func limit() throws(VarlinkError) -> DataLimit? {
            guard let limitBytes else {
                if warningPercent != nil { throw .invalidParameter(parameter: "warningPercent") }
                if cycle != nil { throw .invalidParameter(parameter: "cycle") }
                return nil
            }
            guard limitBytes > 0 else { throw .invalidParameter(parameter: "limitBytes") }
            let percent = warningPercent ?? DataLimit.defaultWarningPercent
            guard (1...100).contains(percent) else { throw .invalidParameter(parameter: "warningPercent") }
            var billing = BillingCycle.calendarMonth
            if let cycle {
                guard let parsed = BillingCycle(cycle) else { throw .invalidParameter(parameter: "cycle") }
                billing = parsed
            }
            return DataLimit(bytes: limitBytes, warningPercent: percent, cycle: billing)
        }
    }
}
