// SPDX-License-Identifier: Apache-2.0
import PathModel

#if canImport(Glibc)
    import Glibc
#endif

/// The wall clock's day in the local time zone (TZ, /etc/localtime): the day usage is counted to. A day is the
/// user's, so a plan's "today" starts at local midnight, not UTC's.
enum LocalCalendar {
    static func today() -> CalendarDay {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        return CalendarDay(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday))
    }
}
