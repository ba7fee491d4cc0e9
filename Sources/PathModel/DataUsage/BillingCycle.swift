// SPDX-License-Identifier: Apache-2.0
/// How a plan's usage is counted in periods: monthly from a day of the month (the default: from the 1st). A
/// cycle is the days `start..<end`.
public enum BillingCycle: Sendable, Hashable {
    /// From `day` (1...31) of each month to the day before it the next month; in a month too short for `day`, the
    /// cycle starts on the month's last day.
    case monthly(day: Int)

    /// Calendar months: the cycle usage is reported in until a data limit names another.
    public static let calendarMonth = BillingCycle.monthly(day: 1)

    /// The cycle that holds `day`.
    public func cycle(containing day: CalendarDay) -> Range<CalendarDay> {
        switch self {
        case .monthly(let startDay):
            let (year, month, dayOfMonth) = day.date
            var start = Self.start(year: year, month: month, day: startDay)
            if dayOfMonth < start.date.day {
                let (previousYear, previousMonth) = month == 1 ? (year - 1, 12) : (year, month - 1)
                start = Self.start(year: previousYear, month: previousMonth, day: startDay)
            }
            let (startYear, startMonth, _) = start.date
            let (nextYear, nextMonth) = startMonth == 12 ? (startYear + 1, 1) : (startYear, startMonth + 1)
            return start..<Self.start(year: nextYear, month: nextMonth, day: startDay)
        }
    }

    /// The cycle before `cycle`.
    public func cycle(before cycle: Range<CalendarDay>) -> Range<CalendarDay> {
        self.cycle(containing: cycle.lowerBound.advanced(by: -1))
    }

    private static func start(year: Int, month: Int, day: Int) -> CalendarDay {
        let clamped = min(max(day, 1), CalendarDay.daysIn(month: month, year: year))
        return CalendarDay(year: year, month: month, day: clamped)
    }
}
