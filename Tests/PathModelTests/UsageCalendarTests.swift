// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PathModel

@Suite struct UsageCalendarTests {
    @Test func daysAreCountedFromTheEpoch() {
        #expect(CalendarDay(year: 1970, month: 1, day: 1).number == 0)
        #expect(CalendarDay(year: 2000, month: 3, day: 1).number == 11_017)
        #expect(CalendarDay(year: 1969, month: 12, day: 31).number == -1)
        #expect(CalendarDay(number: 20_421).description == "2025-11-29")
    }

    @Test func everyDayOfFourCenturiesRoundTrips() {
        var expected = (year: 1900, month: 1, day: 1)
        for number in CalendarDay(year: 1900, month: 1, day: 1)
            .number..<CalendarDay(year: 2300, month: 1, day: 1).number
        {
            let day = CalendarDay(number: number)
            #expect(day.date == expected)
            #expect(CalendarDay(year: expected.year, month: expected.month, day: expected.day) == day)
            if day.date != expected { return }
            if expected.day < CalendarDay.daysIn(month: expected.month, year: expected.year) {
                expected.day += 1
            } else if expected.month < 12 {
                expected = (expected.year, expected.month + 1, 1)
            } else {
                expected = (expected.year + 1, 1, 1)
            }
        }
    }

    @Test func monthLengthsFollowTheGregorianRules() {
        #expect(CalendarDay.daysIn(month: 2, year: 2024) == 29)
        #expect(CalendarDay.daysIn(month: 2, year: 2100) == 28)
        #expect(CalendarDay.daysIn(month: 2, year: 2000) == 29)
        #expect(CalendarDay.daysIn(month: 4, year: 2026) == 30)
    }

    @Test(arguments: [1, 15, 31])
    func cyclesTileTheCalendar(_ startDay: Int) {
        let cycle = BillingCycle.monthly(day: startDay)
        var day = CalendarDay(year: 2023, month: 12, day: 1)
        var current = cycle.cycle(containing: day)
        while day < CalendarDay(year: 2025, month: 3, day: 1) {
            let found = cycle.cycle(containing: day)
            #expect(found.contains(day))
            if found != current {
                #expect(found.lowerBound == current.upperBound)
                #expect(cycle.cycle(before: found) == current)
                current = found
            }
            let (_, month, dayOfMonth) = found.lowerBound.date
            #expect(dayOfMonth == min(startDay, CalendarDay.daysIn(month: month, year: found.lowerBound.date.year)))
            day = day.advanced(by: 1)
        }
    }

    @Test func theBookReportsTodayThisCycleAndThePastOnes() {
        let key = NetworkKey("wifi:Home")!
        var book = UsageBook()
        let today = CalendarDay(year: 2026, month: 11, day: 29)
        book.add(ByteCounts(sent: 1, received: 2), to: key, on: today)
        book.add(ByteCounts(sent: 10, received: 20), to: key, on: CalendarDay(year: 2026, month: 11, day: 1))
        book.add(ByteCounts(sent: 100, received: 200), to: key, on: CalendarDay(year: 2026, month: 10, day: 31))
        book.add(ByteCounts(sent: 1_000, received: 2_000), to: key, on: CalendarDay(year: 2026, month: 8, day: 1))
        let usage = book.usage(today: today, pastCycles: 3)
        #expect(usage.count == 1)
        #expect(usage[0].today == ByteCounts(sent: 1, received: 2))
        #expect(usage[0].cycle.counts == ByteCounts(sent: 11, received: 22))
        #expect(usage[0].cycle.days.lowerBound == CalendarDay(year: 2026, month: 11, day: 1))
        #expect(usage[0].pastCycles.map(\.counts.total) == [300, 0, 3_000])
        book.forget(before: CalendarDay(year: 2026, month: 9, day: 1))
        #expect(book.usage(today: today)[0].pastCycles.map(\.counts.total) == [300, 0, 0])
    }
}
