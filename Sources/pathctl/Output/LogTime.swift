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

    /// `--since`: an absolute local time, a day, a time relative to now ("-1h"), or "@EPOCH-SECONDS"; in
    /// microseconds since the epoch, or nil if the text is none of these.
    static func parse(_ text: String, now: Int64) -> Int64? {
        let word = text.trimmingSpaces
        switch word {
        case "now": return now
        case "today": return startOfDay(now, daysBack: 0)
        case "yesterday": return startOfDay(now, daysBack: 1)
        default: break
        }
        if word.hasPrefix("@"), let seconds = Int64(word.dropFirst()), seconds >= 0, seconds < 1 << 40 {
            return seconds * 1_000_000
        }
        if word.hasPrefix("-") { return relative(word.dropFirst(), now: now) }
        return absolute(word)
    }

    /// "1h", "30min", "2d", "90s", "1h30min" before `now`.
    private static func relative(_ text: Substring, now: Int64) -> Int64? {
        let units: [(String, Int64)] = [
            ("min", 60), ("m", 60), ("s", 1), ("h", 3600), ("d", 86400), ("w", 604_800),
        ]
        var rest = text
        var total: Int64 = 0
        while !rest.isEmpty {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 9, let value = Int64(digits) else { return nil }
            rest = rest.dropFirst(digits.count)
            guard let (unit, seconds) = units.first(where: { rest.hasPrefix($0.0) }) else { return nil }
            rest = rest.dropFirst(unit.count)
            total += value * seconds
        }
        return text.isEmpty ? nil : now - total * 1_000_000
    }

    /// "2026-11-23", "2026-11-23 14:00", "2026-11-23 14:00:05" (or with "T"), local time.
    private static func absolute(_ text: String) -> Int64? {
        let fields = text.split(whereSeparator: { " T-:".contains($0) }).map(String.init)
        guard [3, 5, 6].contains(fields.count), fields.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }),
            fields.allSatisfy({ $0.count <= 4 })
        else { return nil }
        let numbers = fields.compactMap { Int32($0) }
        guard numbers.count == fields.count, (1...12).contains(numbers[1]), (1...31).contains(numbers[2]) else {
            return nil
        }
        var parts = tm()
        parts.tm_year = numbers[0] - 1900
        parts.tm_mon = numbers[1] - 1
        parts.tm_mday = numbers[2]
        parts.tm_hour = numbers.count > 3 ? numbers[3] : 0
        parts.tm_min = numbers.count > 4 ? numbers[4] : 0
        parts.tm_sec = numbers.count > 5 ? numbers[5] : 0
        guard parts.tm_hour < 24, parts.tm_min < 60, parts.tm_sec < 61 else { return nil }
        parts.tm_isdst = -1
        let seconds = mktime(&parts)
        return seconds == -1 ? nil : Int64(seconds) * 1_000_000
    }

    private static func startOfDay(_ now: Int64, daysBack: Int32) -> Int64 {
        var seconds = time_t(now / 1_000_000)
        var parts = tm()
        localtime_r(&seconds, &parts)
        parts.tm_hour = 0
        parts.tm_min = 0
        parts.tm_sec = 0
        parts.tm_mday -= daysBack
        parts.tm_isdst = -1
        return Int64(mktime(&parts)) * 1_000_000
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
