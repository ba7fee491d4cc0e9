// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import Testing

@testable import pathctl

/// `pathctl usage`'s table: a LIMIT column only when a network has a data limit, with the limit's own cycle.
@Suite struct UsageTableTests {
    static func network(limit: WireDataLimit?) -> WireNetworkUsage {
        let period = WireUsagePeriod(first: "2026-11-01", last: "2026-11-30", sent: 1_000_000, received: 2_000_000)
        return WireNetworkUsage(
            key: "cellular:3f9a", displayName: "cellular 3f9a", interfaces: ["wwan0"], today: period, cycle: period,
            pastCycles: [period], dataLimit: limit)
    }

    @Test func aLimitAddsItsColumn() {
        let day = CalendarDay(year: 2026, month: 11, day: 15)
        let status = DataLimitStatus(
            limit: DataLimit(bytes: 5_000_000_000, cycle: .monthly(day: 15)), used: 4_100_000_000,
            cycle: day..<CalendarDay(year: 2026, month: 12, day: 15))
        let limited = UsageTable.render([Self.network(limit: WireDataLimit(status)), Self.network(limit: nil)])
        #expect(limited.contains("LIMIT"), "\(limited)")
        #expect(limited.contains("4.1 GB of 5.0 GB, resets 2026-12-15 (warning)"), "\(limited)")
        let plain = UsageTable.render([Self.network(limit: nil)])
        #expect(!plain.contains("LIMIT"), "\(plain)")
    }
}
