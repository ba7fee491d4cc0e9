// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PathModel

/// Issue 43, item 2's pure part: sizes as plans are sold, cycles by month, week and day, and the level a cycle's
/// usage reaches.
@Suite struct DataLimitTests {
    @Test(arguments: [
        ("5000000", UInt64(5_000_000)), ("5GB", 5_000_000_000), ("5 GB", 5_000_000_000), ("1.5gb", 1_500_000_000),
        ("500M", 500_000_000), ("500MB", 500_000_000), ("2kB", 2_000), ("2.5k", 2_500), ("1TB", 1_000_000_000_000),
        ("0.001kB", 1), ("18446744073709551615", .max),
    ])
    func sizesAreDecimal(_ text: String, _ bytes: UInt64) {
        #expect(DataLimit.size(text) == bytes)
    }

    @Test(arguments: [
        "", "GB", "0", "0GB", "-5GB", "5XB", "5 G B x", "1.5", "0.0001kB", "1.", ".5GB", "5GiB", "20000000000TB",
        "18446744073709551616", "٣GB",
    ])
    func otherTextIsNoSize(_ text: String) {
        #expect(DataLimit.size(text) == nil)
    }

    @Test func cyclesAreSpelledAsTheCommandLineTakesThem() {
        #expect(BillingCycle("monthly:15") == .monthly(day: 15))
        #expect(BillingCycle("weekly:mon") == .weekly(weekday: 1))
        #expect(BillingCycle("weekly:7") == .weekly(weekday: 7))
        #expect(BillingCycle("daily") == .daily)
        for bad in ["monthly", "monthly:0", "monthly:32", "weekly:8", "weekly:", "daily:1", "yearly:1", "monthly:015"] {
            #expect(BillingCycle(bad) == nil, "\(bad)")
        }
        for cycle in [BillingCycle.monthly(day: 31), .weekly(weekday: 3), .daily] {
            #expect(BillingCycle(cycle.description) == cycle)
        }
    }

    @Test func weeksStartOnTheirWeekdayAndDaysAreThemselves() {
        // 2026-11-29 is a Sunday.
        let sunday = CalendarDay(year: 2026, month: 11, day: 29)
        #expect(sunday.weekday == 7)
        #expect(CalendarDay(number: 0).weekday == 4)
        let week = BillingCycle.weekly(weekday: 1).cycle(containing: sunday)
        #expect(week == CalendarDay(year: 2026, month: 11, day: 23)..<CalendarDay(year: 2026, month: 11, day: 30))
        #expect(BillingCycle.weekly(weekday: 7).cycle(containing: sunday).lowerBound == sunday)
        #expect(BillingCycle.daily.cycle(containing: sunday) == sunday..<sunday.advanced(by: 1))
        for weekday in 1...7 {
            var day = CalendarDay(year: 2026, month: 1, day: 1)
            for _ in 0..<30 {
                let cycle = BillingCycle.weekly(weekday: weekday).cycle(containing: day)
                #expect(
                    cycle.contains(day) && cycle.lowerBound.weekday == weekday
                        && cycle.upperBound.number - cycle.lowerBound.number == 7)
                day = day.advanced(by: 1)
            }
        }
    }

    @Test func theLevelFollowsTheCyclesUsage() {
        let key = NetworkKey("cellular:abc")!
        let limit = DataLimit(bytes: 5_000_000_000, cycle: .monthly(day: 1))
        #expect(limit.warningBytes == 4_000_000_000)
        var book = UsageBook()
        let today = CalendarDay(year: 2026, month: 11, day: 29)
        book.add(ByteCounts(sent: 100_000_000, received: 3_000_000_000), to: key, on: today)
        // Last month's bytes do not count.
        book.add(ByteCounts(sent: 0, received: 9_000_000_000), to: key, on: CalendarDay(year: 2026, month: 10, day: 31))
        var status = DataLimitStatus(limit: limit, key: key, book: book, today: today)
        #expect(status.used == 3_100_000_000 && status.level == .normal && !status.constrains)
        book.add(ByteCounts(sent: 0, received: 1_000_000_000), to: key, on: today)
        status = DataLimitStatus(limit: limit, key: key, book: book, today: today)
        #expect(status.level == .warning && status.constrains && !status.makesExpensive)
        book.add(ByteCounts(sent: 900_000_000, received: 0), to: key, on: today)
        status = DataLimitStatus(limit: limit, key: key, book: book, today: today)
        #expect(status.level == .exceeded && status.makesExpensive)
        #expect(status.cycle.upperBound == CalendarDay(year: 2026, month: 12, day: 1))
        // The cycle's reset turns it back.
        let next = DataLimitStatus(limit: limit, key: key, book: book, today: status.cycle.upperBound)
        #expect(next.used == 0 && next.level == .normal)
    }

    @Test(arguments: [1, 50, 80, 99, 100])
    func theWarningIsItsShareOfAnyLimit(_ percent: Int) {
        for bytes: UInt64 in [1, 99, 100, 12_345, 5_000_000_000, .max] {
            let limit = DataLimit(bytes: bytes, warningPercent: percent)
            let exact = bytes.multipliedFullWidth(by: UInt64(percent))
            let (quotient, _) = UInt64(100).dividingFullWidth((exact.high, exact.low))
            #expect(limit.warningBytes == quotient, "\(percent) % of \(bytes)")
        }
    }
}
