// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

@testable import PolicyStore

@Suite struct PolicyFileRecoveryTests {
    let good = Policy(networks: [
        NetworkKey("wifi:Home")!: NetworkPolicy(isConstrained: true),
        NetworkKey("wifi:Cafe")!: NetworkPolicy(isExpensive: true),
        NetworkKey("wired:aa:bb:cc:dd:ee:ff")!: NetworkPolicy(isConstrained: false, isExpensive: true),
    ])

    @Test func oneBadEntryAmongGoodOnesIsSkippedAndNamed() {
        let text =
            #"{"version": 1, "networks": [{"key": "wifi:Cafe", "expensive": true}, "#
            + #"{"key": "wifi:Lost", "constrained": 1}, {"key": "wifi:Home", "constrained": true}, "#
            + #"{"key": "wired:aa:bb:cc:dd:ee:ff", "constrained": false, "expensive": true}]}"#
        let (policy, problems) = PolicyFile.decodeRecovering(Array(text.utf8))
        #expect(policy == good)
        #expect(
            problems == [
                "network entry 2 of the policy file is unusable: \"constrained\" of wifi:Lost is a number, "
                    + "not true, false or null; it was skipped"
            ])
    }

    @Test func fileCutShortKeepsTheEntriesBeforeTheCut() {
        let whole = PolicyFile.encode(good)
        // Every possible truncation: never a crash, never an invented entry, and every entry whole before the cut.
        for length in 0..<(whole.count - 1) {
            let (policy, problems) = PolicyFile.decodeRecovering(Array(whole[..<length]))
            #expect(!problems.isEmpty)
            for (key, settings) in policy.networks {
                #expect(good.networks[key] == settings, "cut at \(length)")
            }
            let completeLines = String(decoding: whole[..<length], as: UTF8.self).split(separator: "\n")
                .filter { $0.hasSuffix("},") || $0.hasSuffix("}") && $0.contains("\"key\"") }
            #expect(policy.networks.count == completeLines.count, "cut at \(length)")
        }
    }

    @Test func wholeFileMinusItsLastBraceRecoversEverything() {
        let whole = PolicyFile.encode(good)
        let (policy, problems) = PolicyFile.decodeRecovering(Array(whole.dropLast(2)))
        #expect(policy == good)
        #expect(problems == ["the policy file is not valid JSON at byte \(whole.count - 2): expected \",\" or \"}\""])
    }

    @Test(arguments: ["", "\0\0\0\0", "not json at all", "[1, 2, 3]", "{\"version\": 1, \"networks\": 5}"])
    func garbageRecoversNothingAndSaysWhy(text: String) {
        let (policy, problems) = PolicyFile.decodeRecovering(Array(text.utf8))
        #expect(policy == Policy())
        #expect(!problems.isEmpty)
    }

    @Test func missingVersionStillReadsTheEntries() {
        let text = #"{"networks": [{"key": "wifi:Home", "constrained": true}]}"#
        let (policy, problems) = PolicyFile.decodeRecovering(Array(text.utf8))
        #expect(policy == Policy(networks: [NetworkKey("wifi:Home")!: NetworkPolicy(isConstrained: true)]))
        #expect(problems.count == 1)
    }

    @Test func newerVersionGivesNothing() {
        let text = #"{"version": 7, "networks": [{"key": "wifi:Home", "constrained": true}]}"#
        let (policy, problems) = PolicyFile.decodeRecovering(Array(text.utf8))
        #expect(policy == Policy())
        #expect(problems.count == 1)
    }

    /// The reader refuses a repeated member anywhere (no two readers of a file may disagree); recovery then loses
    /// only the entry that repeats one, not every entry after it.
    @Test func anEntryThatRepeatsAFieldIsSkippedAlone() {
        let text =
            #"{"version": 1, "networks": [{"key": "wifi:Cafe", "expensive": true}, "#
            + #"{"key": "wifi:Lost", "constrained": true, "constrained": false}, "#
            + #"{"key": "wifi:Home", "constrained": true}, "#
            + #"{"key": "wired:aa:bb:cc:dd:ee:ff", "constrained": false, "expensive": true}]}"#
        let (policy, problems) = PolicyFile.decodeRecovering(Array(text.utf8))
        #expect(policy == good)
        #expect(problems.count == 2, "not JSON, then entry 2 skipped: \(problems)")
    }

    @Test func duplicateKeepsTheFirstAndSaysSo() {
        let text =
            #"{"version": 1, "networks": [{"key": "wifi:a", "constrained": true}, "#
            + #"{"key": "wifi:a", "constrained": false}]}"#
        let (policy, problems) = PolicyFile.decodeRecovering(Array(text.utf8))
        #expect(policy == Policy(networks: [NetworkKey("wifi:a")!: NetworkPolicy(isConstrained: true)]))
        #expect(problems.count == 1)
    }

    @Test func deepNestingIsRefusedWithoutExhaustingTheStack() {
        let bytes = Array(repeating: UInt8(ascii: "["), count: 100_000)
        #expect(throws: PolicyFileError.notJSON(offset: 32, reason: "nested too deeply")) {
            try PolicyFile.decode(bytes)
        }
    }
}
