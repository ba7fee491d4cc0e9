// SPDX-License-Identifier: Apache-2.0
/// Durations as administrators write them in pathmond.conf and on pathctl's command line, in systemd.time(7)'s
/// spelling: a number and a unit, several of them added up ("1h 30min", "2d12h"), or a bare number of seconds.
/// Units: ms, s (sec, second(s)), min (m, minute(s)), h (hr, hour(s)), d (day(s)), w (week(s)).
public enum TimeSpan {
    /// The duration `text` spells, or nil when it is not one (empty, negative, a fraction, an unknown unit, or
    /// longer than ten years).
    public static func parse(_ text: String) -> Duration? {
        var total: Int64 = 0
        var rest = Substring(text).drop(while: \.isWhitespace)
        guard !rest.isEmpty else { return nil }
        while !rest.isEmpty {
            let digits = rest.prefix(while: { $0.isASCII && $0.isNumber })
            guard !digits.isEmpty, digits.count <= 12, let number = Int64(digits) else { return nil }
            rest = rest[digits.endIndex...].drop(while: \.isWhitespace)
            let unit = rest.prefix(while: { $0.isASCII && $0.isLetter })
            rest = rest[unit.endIndex...].drop(while: \.isWhitespace)
            guard let milliseconds = millisecondsPerUnit(unit.lowercased()) else { return nil }
            let (product, overflow) = number.multipliedReportingOverflow(by: milliseconds)
            guard !overflow else { return nil }
            total += product
            guard total <= maximumMilliseconds else { return nil }
        }
        return .milliseconds(total)
    }

    /// A duration as it would be written: "3s", "1d 2h", "500ms".
    public static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        var milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        guard milliseconds > 0 else { return "0" }
        var parts: [String] = []
        for (unit, size) in [("d", 86_400_000), ("h", 3_600_000), ("min", 60_000), ("s", 1000), ("ms", 1)]
            as [(String, Int64)]
        where milliseconds >= size {
            parts.append("\(milliseconds / size)\(unit)")
            milliseconds %= size
        }
        return parts.joined(separator: " ")
    }

    private static let maximumMilliseconds: Int64 = 10 * 366 * 86_400_000

    private static func millisecondsPerUnit(_ unit: String) -> Int64? {
        switch unit {
        case "ms", "msec": return 1
        case "", "s", "sec", "second", "seconds": return 1000
        case "m", "min", "minute", "minutes": return 60_000
        case "h", "hr", "hour", "hours": return 3_600_000
        case "d", "day", "days": return 86_400_000
        case "w", "week", "weeks": return 7 * 86_400_000
        default: return nil
        }
    }
}
