// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

@testable import PolicyStore

/// `dataLimit` in the policy file (issue 43): written only when set, read back whole, absent in files written before
/// limits (which still load), and anything half-formed refused as damage, as the other fields are.
@Suite struct PolicyFileDataLimitTests {
    static let key = NetworkKey("cellular:3f9a0c1b77e2")!

    @Test(arguments: [BillingCycle.monthly(day: 31), .weekly(weekday: 3), .daily])
    func aLimitRoundTrips(cycle: BillingCycle) throws {
        var policy = Policy()
        policy[Self.key] = NetworkPolicy(dataLimit: DataLimit(bytes: 5_000_000_000, warningPercent: 90, cycle: cycle))
        let bytes = PolicyFile.encode(policy)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(
            text.contains("\"dataLimit\": {\"bytes\": 5000000000, \"warningPercent\": 90, \"cycle\": \"\(cycle)\"}"))
        #expect(try PolicyFile.decode(bytes) == policy)
    }

    @Test func aFileFromBeforeLimitsLoadsAndIsWrittenAsBefore() throws {
        let old = #"{"version": 1, "networks": [{"key": "wifi:Home", "constrained": true, "expensive": null}]}"#
        let policy = try PolicyFile.decode(Array(old.utf8))
        #expect(policy[NetworkKey("wifi:Home")!] == NetworkPolicy(isConstrained: true))
        #expect(!String(decoding: PolicyFile.encode(policy), as: UTF8.self).contains("dataLimit"))
        let null = #"{"version": 1, "networks": [{"key": "wifi:Home", "constrained": true, "dataLimit": null}]}"#
        #expect(try PolicyFile.decode(Array(null.utf8))[NetworkKey("wifi:Home")!].dataLimit == nil)
    }

    @Test(arguments: [
        #""dataLimit": 5000"#, #""dataLimit": {"bytes": 0, "warningPercent": 80, "cycle": "daily"}"#,
        #""dataLimit": {"bytes": -1, "warningPercent": 80, "cycle": "daily"}"#,
        #""dataLimit": {"bytes": 1.5, "warningPercent": 80, "cycle": "daily"}"#,
        #""dataLimit": {"bytes": 1000, "warningPercent": 0, "cycle": "daily"}"#,
        #""dataLimit": {"bytes": 1000, "warningPercent": 101, "cycle": "daily"}"#,
        #""dataLimit": {"bytes": 1000, "warningPercent": 80, "cycle": "yearly"}"#,
        #""dataLimit": {"bytes": 1000, "cycle": "daily"}"#,
        #""dataLimit": {"bytes": 1000, "bytes": 2000, "warningPercent": 80, "cycle": "daily"}"#,
        #""dataLimit": null, "dataLimit": null"#,
    ])
    func aHalfFormedLimitIsDamage(field: String) {
        let text = #"{"version": 1, "networks": [{"key": "wifi:Home", "# + field + "}]}"
        #expect(throws: PolicyFileError.self) { try PolicyFile.decode(Array(text.utf8)) }
    }
}
