// SPDX-License-Identifier: Apache-2.0
import FuzzSupport
import PathModel
import Testing

@testable import PolicyStore

// The policy file: strict decoding and the recovering decoder that salvages damaged files.

@Test func policyFileDecodersSurviveMutatedFiles() {
    var policy = Policy()
    policy[NetworkKey("wifi:Home%20Net")!] = NetworkPolicy(isConstrained: true, isExpensive: nil)
    policy[NetworkKey("wired:02:00:00:00:00:01")!] = NetworkPolicy(isConstrained: nil, isExpensive: false)
    policy[NetworkKey("cellular:sim-0123456789abcdef")!] = NetworkPolicy(isConstrained: true, isExpensive: true)
    let seeds = [
        PolicyFile.encode(policy), PolicyFile.encode(Policy()),
        Array(#"{"version": 2, "networks": []}"#.utf8),
        Array(#"{"networks": [{"key": "wifi:\u00e9\ud83d\ude00", "constrained": true}], "version": 1}"#.utf8),
    ]
    let words = [
        "{", "}", "[", "]", ",", ":", "\"", "\\u", "\\ud800", "\\udc00", "true", "false", "null", "1.5e308", "-0.0e-9",
        "\"key\": ", "\"version\": ", "\"networks\": ", "\"constrained\": ", "wifi:", "wired:", "cellular:", "%",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", "{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":",
    ]
    let mutator = Mutator(seeds: seeds, dictionary: words.map { Array($0.utf8) }, seed: 0x9011_C7F1)
    let report = Fuzz.run("policy-file", count: 100_000, mutator: mutator) { input in
        let strict = try? PolicyFile.decode(input)
        let recovered = PolicyFile.decodeRecovering(input)
        // The recovering decoder never does worse than the strict one, and agrees with it on a whole file.
        if let strict { #expect(recovered.policy == strict && recovered.problems.isEmpty) }
        return !recovered.policy.networks.isEmpty
    }
    #expect(report.accepted > 1000 && report.accepted < report.count)
    #expect(report.peakMemoryGrowthKiB < Fuzz.memoryBoundKiB)
}
