// SPDX-License-Identifier: Apache-2.0
/// How a plan's usage is counted in periods: monthly from a day of the month (the default: from the 1st), weekly
/// from a day of the week, or daily. A cycle is the days `start..<end`.
public enum BillingCycle: Sendable, Hashable, CustomStringConvertible {
    /// From `day` (1...31) of each month to the day before it the next month; in a month too short for `day`, the
    /// cycle starts on the month's last day.
    case monthly(day: Int)
    /// From `weekday` (ISO: 1 Monday ... 7 Sunday) for seven days.
    case weekly(weekday: Int)
    /// Each day.
    case daily

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
        case .weekly(let weekday):
            let back = (day.weekday - min(max(weekday, 1), 7) + 7) % 7
            let start = day.advanced(by: -back)
            return start..<start.advanced(by: 7)
        case .daily:
            return day..<day.advanced(by: 1)
        }
    }

    /// "monthly:DAY", "weekly:DAY" or "daily": the spelling `parse` reads and the CLI and the policy file use.
    public var description: String {
        switch self {
        case .monthly(let day): "monthly:\(day)"
        case .weekly(let weekday): "weekly:\(weekday)"
        case .daily: "daily"
        }
    }

    /// "monthly:1"..."monthly:31", "weekly:1"..."weekly:7" (or "weekly:mon"..."weekly:sun") and "daily"; nil for
    /// anything else.
    public init?(_ text: String) {
        let names = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
        let parts = text.lowercased().split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        switch (parts.first, parts.count) {
        case ("daily", 1):
            self = .daily
        case ("monthly", 2):
            guard parts[1].count <= 2, let day = Int(parts[1]), (1...31).contains(day) else { return nil }
            self = .monthly(day: day)
        case ("weekly", 2):
            if let position = names.firstIndex(of: String(parts[1])) {
                self = .weekly(weekday: position + 1)
            } else if parts[1].count == 1, let weekday = Int(parts[1]), (1...7).contains(weekday) {
                self = .weekly(weekday: weekday)
            } else {
                return nil
            }
        default:
            return nil
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
