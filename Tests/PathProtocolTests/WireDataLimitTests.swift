// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import Testing

/// io.pathmond.DataLimit and SetDataLimit's parameters (issue 43): a status goes out and comes back the same; a
/// client refuses a value the definition does not allow; the daemon refuses a limit out of range by the parameter's
/// name.
@Suite struct WireDataLimitTests {
    static let day = CalendarDay(year: 2028, month: 2, day: 29)

    @Test(arguments: [BillingCycle.monthly(day: 31), .weekly(weekday: 7), .daily])
    func aStatusRoundTrips(cycle: BillingCycle) throws {
        let limit = DataLimit(bytes: 5_000_000_000, warningPercent: 90, cycle: cycle)
        let status = DataLimitStatus(limit: limit, used: 4_600_000_000, cycle: cycle.cycle(containing: Self.day))
        let wire = WireDataLimit(status)
        #expect(wire.level == "warning" && wire.cycleStart <= "2028-02-29" && wire.cycleEnd > "2028-02-29")
        #expect(try wire.status() == status)
    }

    @Test func valuesTheDefinitionDoesNotAllowAreRefused() {
        let good = WireDataLimit(
            DataLimitStatus(limit: DataLimit(bytes: 1_000), used: 0, cycle: Self.day..<Self.day.advanced(by: 1)))
        var bad = [good, good, good, good]
        bad[0].cycle = "yearly"
        bad[1].cycleStart = "2027-02-29"
        bad[2].cycleEnd = "2028-02-28"
        bad[3].limitBytes = 0
        for wire in bad {
            #expect(throws: WireFormatError.self) { try wire.status() }
        }
        #expect(CalendarDay(text: "2028-02-29") == Self.day)
        for text in ["2028-2-29", "2028-13-01", "2028-00-10", "20280229", "2028-02-30", ""] {
            #expect(CalendarDay(text: text) == nil, "\(text)")
        }
    }

    @Test func setDataLimitRefusesARangeByTheParametersName() throws {
        typealias Parameters = Methods.SetDataLimitParameters
        #expect(try Parameters(key: "wifi:Home").limit() == nil)
        #expect(try Parameters(key: "wifi:Home", limitBytes: 5_000).limit() == DataLimit(bytes: 5_000))
        let cases: [(Parameters, String)] = [
            (Parameters(limitBytes: 0), "limitBytes"), (Parameters(limitBytes: 5, warningPercent: 0), "warningPercent"),
            (Parameters(limitBytes: 5, warningPercent: 101), "warningPercent"),
            (Parameters(limitBytes: 5, cycle: "monthly:32"), "cycle"), (Parameters(cycle: "daily"), "cycle"),
            (Parameters(warningPercent: 80), "warningPercent"),
        ]
        for (parameters, name) in cases {
            #expect(throws: VarlinkError.invalidParameter(parameter: name)) { try parameters.limit() }
        }
    }
}
