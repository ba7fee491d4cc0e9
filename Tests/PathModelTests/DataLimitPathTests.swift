// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PathModel

/// Issue 43, items 2 and 3 in the model: a network's limit status is an input of the evaluator, which makes the
/// path constrained past the warning and expensive past the limit, with the limit as the reason; the cycle math at
/// month ends; when the meter reads often and when it publishes.
@Suite struct DataLimitPathTests {
    static let key = NetworkIdentity.wifi(ssid: Array("Phone".utf8)).key
    static let limit = DataLimit(bytes: 5_000_000_000, cycle: .monthly(day: 31))
    static let today = CalendarDay(year: 2026, month: 2, day: 14)

    static func state() -> KernelState {
        KernelState(
            KernelSnapshot(
                links: [makeWifi(2, "wlan0")], addresses: [makeAddress(2, "192.0.2.10")],
                routes: [makeRoute(2, via: "192.0.2.1")]))
    }

    static func context(limit: DataLimit? = limit, used: UInt64?, cycle: BillingCycle? = nil) -> NetworkContext {
        var context = NetworkContext(identities: [2: .wifi(ssid: Array("Phone".utf8))])
        context.policy[key].dataLimit = limit
        if let used {
            let measured = DataLimit(bytes: Self.limit.bytes, cycle: cycle ?? Self.limit.cycle)
            context.dataLimits[key] = DataLimitStatus(
                limit: measured, used: used, cycle: measured.cycle.cycle(containing: today))
        }
        return context
    }

    @Test(arguments: [
        (UInt64(0), false, false), (3_999_999_999, false, false), (4_000_000_000, true, false),
        (4_999_999_999, true, false), (5_000_000_000, true, true), (9_000_000_000, true, true),
    ])
    func thePathFollowsTheLevel(used: UInt64, constrained: Bool, expensive: Bool) throws {
        let path = PathEvaluator().path(in: Self.state(), context: Self.context(used: used))
        #expect(path.status == .satisfied)
        #expect(path.isConstrained == constrained && path.isExpensive == expensive)
        let interface = try #require(
            PathEvaluator().interfaces(in: Self.state(), context: Self.context(used: used)).last)
        #expect(interface.dataLimit?.used == used)
        #expect(interface.expensiveSource == (expensive ? .dataLimit : nil))
        #expect(path.dataLimit?.used == used && path.availableInterfaces.first?.dataLimit?.used == used)
    }

    @Test func theLimitWinsOverTheUsersWordButClearingItActsAtOnce() {
        var context = Self.context(used: 6_000_000_000)
        context.policy[Self.key].isExpensive = false
        context.policy[Self.key].isConstrained = false
        var path = PathEvaluator().path(in: Self.state(), context: context)
        #expect(path.isConstrained && path.isExpensive)
        // Cleared: the meter's stale status is ignored before the meter speaks again.
        context.policy[Self.key].dataLimit = nil
        path = PathEvaluator().path(in: Self.state(), context: context)
        #expect(!path.isConstrained && !path.isExpensive && path.dataLimit == nil)
    }

    @Test func aStatusOfAnotherCycleWaitsForTheMeterAndAnotherSizeActsAtOnce() {
        // Measured weekly, the policy now monthly: the usage of another cycle says nothing yet.
        let other = Self.context(used: 6_000_000_000, cycle: .weekly(weekday: 1))
        #expect(!PathEvaluator().path(in: Self.state(), context: other).isConstrained)
        // A larger limit over the same cycle: the usage measured stands against it at once.
        var larger = Self.context(used: 4_500_000_000)
        larger.policy[Self.key].dataLimit = DataLimit(bytes: 50_000_000_000, cycle: Self.limit.cycle)
        let path = PathEvaluator().path(in: Self.state(), context: larger)
        #expect(!path.isConstrained && path.dataLimit?.limit.bytes == 50_000_000_000)
    }

    @Test func aChangedStatusMarksEveryInterface() {
        let before = Self.context(used: 0)
        var after = before
        after.dataLimits[Self.key]?.used = 4_000_000_000
        #expect(after.interfacesChanged(since: before) == nil)
        #expect(before.interfacesChanged(since: before) == [])
    }

    @Test func aMonthlyCycleOnThe31stEndsOnEachMonthsLastDay() {
        let cycle = BillingCycle.monthly(day: 31)
        // 2026: February has 28 days; the cycle that holds 14 February started on 31 January.
        #expect(
            cycle.cycle(containing: CalendarDay(year: 2026, month: 2, day: 14))
                == CalendarDay(year: 2026, month: 1, day: 31)..<CalendarDay(year: 2026, month: 2, day: 28))
        #expect(
            cycle.cycle(containing: CalendarDay(year: 2026, month: 2, day: 28))
                == CalendarDay(year: 2026, month: 2, day: 28)..<CalendarDay(year: 2026, month: 3, day: 31))
        // A leap year's 29 February.
        #expect(cycle.cycle(containing: CalendarDay(year: 2028, month: 2, day: 29)).lowerBound.date.day == 29)
        // monthly:30 across February, and the turn of the year.
        #expect(
            BillingCycle.monthly(day: 30).cycle(containing: CalendarDay(year: 2026, month: 3, day: 1))
                == CalendarDay(year: 2026, month: 2, day: 28)..<CalendarDay(year: 2026, month: 3, day: 30))
        #expect(
            BillingCycle.monthly(day: 15).cycle(containing: CalendarDay(year: 2027, month: 1, day: 3))
                == CalendarDay(year: 2026, month: 12, day: 15)..<CalendarDay(year: 2027, month: 1, day: 15))
        // Every day of four years lies in exactly one cycle, and consecutive cycles meet.
        for startDay in [1, 28, 29, 30, 31] {
            let monthly = BillingCycle.monthly(day: startDay)
            var day = CalendarDay(year: 2027, month: 12, day: 1)
            var last = monthly.cycle(containing: day)
            for _ in 0..<(4 * 366) {
                day = day.advanced(by: 1)
                let cycle = monthly.cycle(containing: day)
                #expect(cycle.contains(day))
                #expect(cycle == last || cycle.lowerBound == last.upperBound, "monthly:\(startDay) at \(day)")
                last = cycle
            }
        }
    }

    @Test func readsQuickenFromATenthBelowTheWarningUntilTheLimit() {
        let cycle = Self.today..<Self.today.advanced(by: 1)
        func near(_ used: UInt64) -> Bool {
            DataLimitStatus(limit: DataLimit(bytes: 1_000, cycle: .daily), used: used, cycle: cycle).isNearThreshold
        }
        #expect(!near(0) && !near(699))
        #expect(near(700) && near(800) && near(999))
        #expect(!near(1_000))
        #expect(DataLimitStatus(limit: DataLimit(bytes: .max), used: .max - 1, cycle: cycle).isNearThreshold)
    }

    @Test func theBytesLeftAreToTheWarningThenToTheLimit() {
        let cycle = Self.today..<Self.today.advanced(by: 1)
        func left(_ used: UInt64) -> UInt64? {
            DataLimitStatus(limit: DataLimit(bytes: 1_000, cycle: .daily), used: used, cycle: cycle).bytesToNextLevel
        }
        #expect(left(0) == 800 && left(799) == 1)
        #expect(left(800) == 200 && left(999) == 1)
        #expect(left(1_000) == nil && left(5_000) == nil)
    }

    @Test func theFigureIsPublishedInHundredthsOfTheLimit() {
        let cycle = Self.today..<Self.today.advanced(by: 1)
        let limit = DataLimit(bytes: 5_000_000_000, cycle: .daily)
        let old = DataLimitStatus(limit: limit, used: 1_000_000_000, cycle: cycle)
        var new = old
        new.used = 1_049_999_999
        #expect(!new.differsInReport(from: old))
        new.used = 1_050_000_000
        #expect(new.differsInReport(from: old))
        #expect(old.differsInReport(from: nil))
        var otherCycle = old
        otherCycle.cycle = cycle.upperBound..<cycle.upperBound.advanced(by: 1)
        #expect(otherCycle.differsInReport(from: old))
        #expect(old.summary == "1.0 GB of 5.0 GB")
    }

    @Test func aTunnelOverALimitedNetworkGivesTheLimitAsItsReason() throws {
        let snapshot = KernelSnapshot(
            links: [makeWifi(2, "wlan0"), makeLink(3, "wg0", linkKind: "wireguard")],
            addresses: [makeAddress(2, "192.0.2.10"), makeAddress(3, "10.8.0.2")],
            routes: [makeRoute(2, via: "192.0.2.1", metric: 600), makeRoute(3, via: nil, metric: 50)])
        let interfaces = PathEvaluator().interfaces(
            in: KernelState(snapshot), context: Self.context(used: 4_200_000_000))
        let tunnel = try #require(interfaces.first { $0.link.index == 3 })
        #expect(tunnel.isConstrained && tunnel.dataLimit?.used == 4_200_000_000)
    }
}
