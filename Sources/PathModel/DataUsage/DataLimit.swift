// SPDX-License-Identifier: Apache-2.0
/// A plan's data limit on a network (issue 43, item 2): bytes sent and received together per billing cycle, and
/// the share of it past which the path turns constrained (Low Data Mode by itself) before it runs out; past the
/// limit it is also expensive.
public struct DataLimit: Sendable, Hashable {
    /// Sent and received together, per cycle.
    public var bytes: UInt64
    /// Percent of `bytes` (1...100) past which the network is constrained.
    public var warningPercent: Int
    public var cycle: BillingCycle

    /// What plans and phones warn at.
    public static let defaultWarningPercent = 80

    public init(bytes: UInt64, warningPercent: Int = defaultWarningPercent, cycle: BillingCycle = .calendarMonth) {
        self.bytes = bytes
        self.warningPercent = min(max(warningPercent, 1), 100)
        self.cycle = cycle
    }

    /// The bytes past which the warning applies: `warningPercent` of the limit, rounded down.
    public var warningBytes: UInt64 {
        bytes / 100 * UInt64(warningPercent) + bytes % 100 * UInt64(warningPercent) / 100
    }

    /// How far `used` bytes of this cycle are along the limit.
    public func level(used: UInt64) -> DataLimitStatus.Level {
        if used >= bytes { return .exceeded }
        if used >= warningBytes { return .warning }
        return .normal
    }

    /// A size as plans are sold: bytes ("5000000"), or a decimal number with kB, MB, GB or TB (powers of 1,000,
    /// case and a space ignored, the "B" optional: "5GB", "1.5 gb", "500M"). Nil for anything else, zero, or a
    /// size that does not fit 64 bits.
    public static func size(_ text: String) -> UInt64? {
        var digits = Substring(text.lowercased().filter { $0 != " " })
        if digits.hasSuffix("b") { digits = digits.dropLast() }
        let scales: [Character: UInt64] = ["k": 1_000, "m": 1_000_000, "g": 1_000_000_000, "t": 1_000_000_000_000]
        var scale: UInt64 = 1
        if let last = digits.last, let unit = scales[last] {
            scale = unit
            digits = digits.dropLast()
        }
        let parts = digits.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy(\.isASCII), whole.allSatisfy(\.isNumber),
            let wholeValue = UInt64(whole)
        else { return nil }
        var (total, overflow) = wholeValue.multipliedReportingOverflow(by: scale)
        guard !overflow else { return nil }
        if parts.count == 2 {
            let fraction = parts[1]
            guard !fraction.isEmpty, fraction.count <= 12, fraction.allSatisfy(\.isASCII),
                fraction.allSatisfy(\.isNumber), let fractionValue = UInt64(fraction)
            else { return nil }
            var denominator: UInt64 = 1
            for _ in fraction { denominator *= 10 }
            let (scaled, tooLarge) = fractionValue.multipliedReportingOverflow(by: scale)
            // Bytes are whole: a fraction finer than a byte is refused rather than rounded.
            guard !tooLarge, scaled % denominator == 0 else { return nil }
            (total, overflow) = total.addingReportingOverflow(scaled / denominator)
            guard !overflow else { return nil }
        }
        return total > 0 ? total : nil
    }
}

/// Where a network stands against its data limit: what the path, `pathctl status` and clients that ask see.
public struct DataLimitStatus: Sendable, Hashable {
    /// Ordered: each is worse than the one before.
    public enum Level: Int, Sendable, Hashable, Comparable {
        /// Below the warning.
        case normal
        /// Past the warning: the path on the network is constrained.
        case warning
        /// Past the limit: constrained and expensive.
        case exceeded

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public var limit: DataLimit
    /// Sent and received together in the cycle so far.
    public var used: UInt64
    /// The cycle's days; the status turns back at `cycle.upperBound`.
    public var cycle: Range<CalendarDay>
    public var level: Level { limit.level(used: used) }

    public init(limit: DataLimit, used: UInt64, cycle: Range<CalendarDay>) {
        self.limit = limit
        self.used = used
        self.cycle = cycle
    }

    /// `limit` on `key`'s usage in the cycle that holds `today`.
    public init(limit: DataLimit, key: NetworkKey, book: UsageBook, today: CalendarDay) {
        let cycle = limit.cycle.cycle(containing: today)
        self.init(limit: limit, used: book.total(of: key, in: cycle).total, cycle: cycle)
    }

    /// Whether the path on the network is constrained by the limit.
    public var constrains: Bool { level >= .warning }
    /// Whether the path on the network is expensive by the limit.
    public var makesExpensive: Bool { level == .exceeded }
}

extension DataLimitStatus {
    /// The steps `used` is reported in, on the path and to clients: a hundredth of the limit. A status is published
    /// again when its level, limit or cycle changes, or `used` enters another step: at most about 100 path updates a
    /// cycle per limited network for the figure, instead of one per reading.
    public var reportingStep: UInt64 { max(limit.bytes / 100, 1) }

    /// Whether this status says something `old` did not: another level, limit or cycle, or `used` in another step.
    public func differsInReport(from old: DataLimitStatus?) -> Bool {
        guard let old else { return true }
        return limit != old.limit || cycle != old.cycle || level != old.level
            || used / reportingStep != old.used / reportingStep
    }

    /// Whether the meter should read the network's interfaces every second or so instead of its usual interval:
    /// from a tenth of the limit below the warning until the limit is passed, where either crossing may come with
    /// the next megabytes. Past the limit there is nothing left to cross.
    public var isNearThreshold: Bool {
        let (reach, overflow) = used.addingReportingOverflow(max(limit.bytes / 10, 1))
        return level != .exceeded && (overflow || reach >= limit.warningBytes)
    }

    /// The bytes left before the next level (the warning, then the limit); nil past the limit, with nothing left to
    /// cross.
    public var bytesToNextLevel: UInt64? {
        switch level {
        case .normal: limit.warningBytes - used
        case .warning: limit.bytes - used
        case .exceeded: nil
        }
    }

    /// The last day of the cycle is `cycle.upperBound - 1`; the status turns back at the start of `cycle.upperBound`.
    public var resetDay: CalendarDay { cycle.upperBound }
}

extension DataLimitStatus {
    /// "4.1 GB of 5.0 GB": what `pathctl status` and the journal show.
    public var summary: String { "\(ByteSize.text(used)) of \(ByteSize.text(limit.bytes))" }
}
