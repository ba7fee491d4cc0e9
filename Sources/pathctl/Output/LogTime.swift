// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// Times as `pathctl log` reads and prints them: local time, as journalctl does.
enum LogTime {
    /// Now, in microseconds since the epoch.
    static func now() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }

    /// "2026-11-23 14:02:07.512", local time.
    static func format(_ microseconds: Int64) -> String {
        var seconds = time_t(microseconds / 1_000_000)
        var parts = tm()
        localtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M:%S", &parts)
        let text = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let millis = Int((microseconds % 1_000_000) / 1000)
        return text + "." + String(repeating: "0", count: millis < 10 ? 2 : millis < 100 ? 1 : 0) + String(millis)
    }

    /// Why `--since` was refused.
    enum ParseError: Error, Equatable {
        /// The text is none of the forms `parse` reads.
        case notATime
        /// The text reads as a time, but one before 1970 or beyond what a 64-bit count of microseconds holds
        /// ("-999999999w").
        case outOfRange
    }

    /// `--since`: an absolute local time, a day, a time relative to now ("-1h"), or "@EPOCH-SECONDS"; in
    /// microseconds since the epoch. Every step of the arithmetic is checked: absurd input is an error, never a trap.
    static func parse(_ text: String, now: Int64) throws(ParseError) -> Int64 {
        let word = text.trimmingSpaces
        switch word {
        case "now": return now
        case "today": return try startOfDay(now, daysBack: 0)
        case "yesterday": return try startOfDay(now, daysBack: 1)
        default: break
        }
        if word.hasPrefix("@") {
            let digits = word.dropFirst()
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { throw .notATime }
            guard let seconds = Int64(digits) else { throw .outOfRange }
            return try microseconds(seconds)
        }
        if word.hasPrefix("-") { return try relative(word.dropFirst(), now: now) }
        return try absolute(word)
    }

    /// `seconds` since the epoch in microseconds, refusing what precedes the epoch or does not fit.
    private static func microseconds(_ seconds: Int64) throws(ParseError) -> Int64 {
        let (result, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        guard seconds >= 0, !overflow else { throw .outOfRange }
        return result
    }

    /// "1h", "30min", "2d", "90s", "1h30min" before `now`.
    private static func relative(_ text: Substring, now: Int64) throws(ParseError) -> Int64 {
        let units: [(String, Int64)] = [
            ("min", 60), ("m", 60), ("s", 1), ("h", 3600), ("d", 86400), ("w", 604_800),
        ]
        guard !text.isEmpty else { throw .notATime }
        var rest = text
        var total: Int64 = 0
        var overflowed = false
        while !rest.isEmpty {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty else { throw .notATime }
            rest = rest.dropFirst(digits.count)
            guard let (unit, seconds) = units.first(where: { rest.hasPrefix($0.0) }) else { throw .notATime }
            rest = rest.dropFirst(unit.count)
            // The whole text is read before an overflow is reported, so that "-99999999999999999999x" is not a
            // time rather than out of range.
            guard let value = Int64(digits) else {
                overflowed = true
                continue
            }
            let (product, productOverflow) = value.multipliedReportingOverflow(by: seconds)
            let (sum, sumOverflow) = total.addingReportingOverflow(product)
            overflowed = overflowed || productOverflow || sumOverflow
            total = sum
        }
        guard !overflowed else { throw .outOfRange }
        let (back, backOverflow) = total.multipliedReportingOverflow(by: 1_000_000)
        let (result, resultOverflow) = now.subtractingReportingOverflow(back)
        guard !backOverflow, !resultOverflow, result >= 0 else { throw .outOfRange }
        return result
    }

    /// "2026-11-23", "2026-11-23 14:00", "2026-11-23 14:00:05" (or with "T"), local time.
    private static func absolute(_ text: String) throws(ParseError) -> Int64 {
        let fields = text.split(whereSeparator: { " T-:".contains($0) }).map(String.init)
        guard [3, 5, 6].contains(fields.count), fields.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }),
            fields.allSatisfy({ $0.count <= 4 })
        else { throw .notATime }
        let numbers = fields.compactMap { Int32($0) }
        guard numbers.count == fields.count, (1...12).contains(numbers[1]), (1...31).contains(numbers[2]) else {
            throw .notATime
        }
        var parts = tm()
        parts.tm_year = numbers[0] - 1900
        parts.tm_mon = numbers[1] - 1
        parts.tm_mday = numbers[2]
        parts.tm_hour = numbers.count > 3 ? numbers[3] : 0
        parts.tm_min = numbers.count > 4 ? numbers[4] : 0
        parts.tm_sec = numbers.count > 5 ? numbers[5] : 0
        guard parts.tm_hour < 24, parts.tm_min < 60, parts.tm_sec < 61 else { throw .notATime }
        parts.tm_isdst = -1
        let seconds = mktime(&parts)
        guard seconds != -1 else { throw .outOfRange }
        return try microseconds(Int64(seconds))
    }

    private static func startOfDay(_ now: Int64, daysBack: Int32) throws(ParseError) -> Int64 {
        var seconds = time_t(now / 1_000_000)
        var parts = tm()
        localtime_r(&seconds, &parts)
        parts.tm_hour = 0
        parts.tm_min = 0
        parts.tm_sec = 0
        parts.tm_mday -= daysBack
        parts.tm_isdst = -1
        return try microseconds(Int64(mktime(&parts)))
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
