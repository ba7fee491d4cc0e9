// SPDX-License-Identifier: Apache-2.0
import PathModel
import Synchronization

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

    /// The day now: from the quarter hour's kept day when it has one (`lastQuarter`), else through localtime_r
    /// (600 instructions, and usage asks at every reading, which a wired network's route flip takes).
    static func today() -> CalendarDay {
        let now = now()
        if let kept = QuarterDay(packed: lastQuarter.load(ordering: .relaxed)),
            kept.quarter == QuarterDay.quarter(of: now)
        {
            return kept.day
        }
        guard let quarter = QuarterDay(of: now, days: day(at:)) else { return day(at: now) }
        lastQuarter.store(quarter.packed, ordering: .relaxed)
        return quarter.day
    }

    /// The local day at `seconds` since the epoch.
    static func day(at seconds: Int) -> CalendarDay {
        var time = time_t(seconds)
        var parts = tm()
        localtime_r(&time, &parts)
        return CalendarDay(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday))
    }

    /// The last quarter hour `today` found within one day, and that day (`QuarterDay.packed`; 0: none yet). One
    /// word, read and written whole: `today` is asked from the main loop and the metrics writer's thread alike.
    private static let lastQuarter = Atomic<UInt64>(0)

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

/// A quarter hour of the epoch (900 s from a multiple of 900) that lies within one local day, and that day. Every
/// local midnight falls on a quarter hour in every zone in use since 1972 (offsets are whole quarter hours), so a
/// day is made of whole quarter hours; both ends are checked all the same (the local day does not go back and
/// forth within a quarter hour), so a zone of odd offset only loses the caching, never gets a wrong day.
struct QuarterDay: Equatable {
    static let length = 900

    var quarter: Int
    var day: CalendarDay

    /// The quarter hour that holds `seconds`.
    static func quarter(of seconds: Int) -> Int {
        seconds >= 0 ? seconds / length : (seconds - length + 1) / length
    }

    /// The quarter hour holding `seconds` and its day, if both its ends are on the same day by `days`; nil when
    /// a midnight falls within it, or it lies beyond what `packed` holds.
    init?(of seconds: Int, days: (Int) -> CalendarDay) {
        let quarter = Self.quarter(of: seconds)
        guard quarter >= 0, quarter < Int(UInt32.max) else { return nil }
        let first = days(quarter * Self.length)
        guard first == days(quarter * Self.length + Self.length - 1) else { return nil }
        self.quarter = quarter
        day = first
    }

    /// The quarter hour plus one in the high half (0 is no quarter), the day's number in the low.
    var packed: UInt64 {
        UInt64(quarter + 1) << 32 | UInt64(UInt32(bitPattern: Int32(truncatingIfNeeded: day.number)))
    }

    init?(packed: UInt64) {
        guard packed >> 32 != 0 else { return nil }
        quarter = Int(packed >> 32) - 1
        day = CalendarDay(number: Int(Int32(bitPattern: UInt32(truncatingIfNeeded: packed))))
    }
}
