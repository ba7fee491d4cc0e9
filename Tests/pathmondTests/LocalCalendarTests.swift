// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

@testable import pathmond

/// `LocalCalendar.today()` keeps its day for a quarter hour (`QuarterDay`): never a day other than localtime_r's,
/// in a zone of whole quarter hours or of an odd offset.
@Suite struct LocalCalendarTests {
    /// The local day at `seconds` in a zone `offset` seconds east of UTC, without daylight saving time.
    static func days(offset: Int) -> (Int) -> CalendarDay {
        { seconds in
            let local = seconds + offset
            return CalendarDay(number: local >= 0 ? local / 86_400 : (local - 86_399) / 86_400)
        }
    }

    @Test(arguments: [0, 5 * 3600 + 45 * 60, -(3 * 3600 + 30 * 60), -(44 * 60 + 30), 37])
    func aKeptQuarterHoursDayIsAlwaysTheDayOfEachOfItsSeconds(offset: Int) {
        let days = Self.days(offset: offset)
        // Two days and a half around 2026-11-29, a second at a time.
        let start = CalendarDay(year: 2026, month: 11, day: 29).number * 86_400 - 86_400
        var kept = 0
        var quarters = 0
        for seconds in stride(from: start, to: start + 216_000, by: 1) {
            guard let quarter = QuarterDay(of: seconds, days: days) else { continue }
            kept += 1
            if seconds % QuarterDay.length == 0 { quarters += 1 }
            if quarter.day != days(seconds) {
                Issue.record("\(seconds): kept \(quarter.day), the day is \(days(seconds))")
                return
            }
            #expect(QuarterDay(packed: quarter.packed) == quarter)
        }
        // With whole quarter hours every quarter is kept; with an odd offset all but those a midnight cuts (two
        // or three in two days and a half).
        if offset % QuarterDay.length == 0 {
            #expect(quarters == 240)
        } else {
            #expect((237...238).contains(quarters))
        }
        #expect(kept == quarters * QuarterDay.length)
    }

    @Test func nothingPackedIsNoQuarter() {
        #expect(QuarterDay(packed: 0) == nil)
        #expect(QuarterDay.quarter(of: -1) == -1)
        #expect(QuarterDay(of: -1, days: Self.days(offset: 0)) == nil)
    }

    @Test func todayIsLocaltimesDay() {
        // Twice: the second from the kept quarter hour.
        for _ in 0..<2 { #expect(LocalCalendar.today() == LocalCalendar.day(at: LocalCalendar.now())) }
    }
}
