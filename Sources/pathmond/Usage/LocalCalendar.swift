// SPDX-License-Identifier: Apache-2.0
import PathModel

#if canImport(Glibc)
    import Glibc
#endif

/// The wall clock's day in the local time zone (TZ, /etc/localtime): the day usage is counted to. A day is the
/// user's, so a plan's "today" starts at local midnight, not UTC's.
///
/// Test-only: `PATHMOND_TEST_CLOCK_OFFSET` (whole seconds, read once at start) moves this clock, and only this
/// one, so that a test can start pathmond a few seconds before a billing cycle ends and watch the reset. Usage
/// days, cycles and their reset read it; timers, the history and the journal keep the real clocks. Nothing in the
/// units sets it.
enum LocalCalendar {
    static let offsetVariable = "PATHMOND_TEST_CLOCK_OFFSET"

    /// Seconds added to the wall clock.
    static let offset: Int = getenv(offsetVariable).flatMap { Int(String(cString: $0)) } ?? 0

    /// The (possibly moved) wall clock, in seconds since the epoch.
    static func now() -> Int { time(nil) + offset }

    static func today() -> CalendarDay {
        var now = time_t(now())
        var parts = tm()
        localtime_r(&now, &parts)
        return CalendarDay(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday))
    }

    /// Seconds from now until `day`'s local midnight (0 when it has begun). Through mktime, so that a day of 23 or
    /// 25 hours (a change of daylight saving time) ends when the local calendar says.
    static func secondsUntilStart(of day: CalendarDay) -> Int {
        let (year, month, dayOfMonth) = day.date
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(dayOfMonth)
        parts.tm_isdst = -1
        let start = mktime(&parts)
        guard start != -1 else { return 24 * 3600 }
        return max(0, start - now())
    }
}
