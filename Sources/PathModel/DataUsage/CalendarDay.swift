// SPDX-License-Identifier: Apache-2.0
/// A day of the local calendar, as the number of days since 1970-01-01: what usage is bucketed by. The daemon
/// turns its wall clock into one through the local time zone; the model only counts days, so it reads no clock.
public struct CalendarDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Days since 1970-01-01 (negative before).
    public var number: Int

    public init(number: Int) { self.number = number }

    /// The day of a proleptic Gregorian date; `month` 1...12, `day` 1...31 (not checked against the month).
    public init(year: Int, month: Int, day: Int) {
        // Counted from 1 March, so that the leap day is the last day of its (shifted) year.
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        number = era * 146_097 + dayOfEra - 719_468
    }

    /// The date: year, month 1...12, day of the month 1...31.
    public var date: (year: Int, month: Int, day: Int) {
        let shifted = number + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The number of days in a month of a year.
    public static func daysIn(month: Int, year: Int) -> Int {
        let next =
            month == 12
            ? CalendarDay(year: year + 1, month: 1, day: 1) : CalendarDay(year: year, month: month + 1, day: 1)
        return next.number - CalendarDay(year: year, month: month, day: 1).number
    }

    /// The ISO day of the week: 1 Monday ... 7 Sunday (1970-01-01 was a Thursday).
    public var weekday: Int { ((number % 7) + 7 + 3) % 7 + 1 }

    /// The day `days` later (earlier when negative).
    public func advanced(by days: Int) -> CalendarDay { CalendarDay(number: number + days) }

    /// "2026-11-29".
    public var description: String {
        let (year, month, day) = date
        return "\(year)-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)"
    }

    public static func < (lhs: CalendarDay, rhs: CalendarDay) -> Bool { lhs.number < rhs.number }
}
