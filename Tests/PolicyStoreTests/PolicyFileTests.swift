// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

@testable import PolicyStore

/// Wi-Fi keys that break naive escaping: empty, the 32-byte maximum, bytes that are not UTF-8, JSON's own
/// metacharacters, the escape character itself, control characters and non-ASCII UTF-8.
let awkwardSSIDs: [[UInt8]] = [
    [],
    Array(repeating: UInt8(ascii: "x"), count: 32),
    Array(0..<32),
    [0xff, 0xfe, 0x80, 0xc3],
    Array("say \"hi\"".utf8),
    Array("100% free".utf8),
    Array("%41".utf8),
    Array("back\\slash".utf8),
    Array("tab\there\nnewline".utf8),
    Array("Café ☕".utf8),
]

/// A policy with every awkward Wi-Fi network and every flag combination, plus cellular and wired keys.
func awkwardPolicy() -> Policy {
    let flags: [(Bool?, Bool?)] = [(true, nil), (false, nil), (nil, true), (nil, false), (true, true), (false, true)]
    var policy = Policy()
    for (index, ssid) in awkwardSSIDs.enumerated() {
        let (constrained, expensive) = flags[index % flags.count]
        policy[NetworkIdentity.wifi(ssid: ssid).key] = NetworkPolicy(isConstrained: constrained, isExpensive: expensive)
    }
    policy[NetworkIdentity.cellular(subscriber: "3f2a9c\"odd\\").key] = NetworkPolicy(isExpensive: true)
    policy[NetworkIdentity.wired(gateway: "AA:BB:CC:00:11:22").key] = NetworkPolicy(isConstrained: true)
    return policy
}

@Suite struct PolicyFileTests {
    @Test func emptyPolicyRoundTrips() throws {
        let bytes = PolicyFile.encode(Policy())
        #expect(String(decoding: bytes, as: UTF8.self) == "{\n    \"version\": 1,\n    \"networks\": []\n}\n")
        #expect(try PolicyFile.decode(bytes) == Policy())
    }

    @Test(arguments: awkwardSSIDs) func awkwardWiFiKeyRoundTrips(ssid: [UInt8]) throws {
        let key = NetworkIdentity.wifi(ssid: ssid).key
        let policy = Policy(networks: [key: NetworkPolicy(isConstrained: true)])
        let decoded = try PolicyFile.decode(PolicyFile.encode(policy))
        #expect(decoded == policy)
        #expect(decoded.networks.keys.first?.ssid == ssid)
    }

    @Test func everyFlagCombinationRoundTrips() throws {
        let policy = awkwardPolicy()
        #expect(try PolicyFile.decode(PolicyFile.encode(policy)) == policy)
        #expect(PolicyFile.decodeRecovering(PolicyFile.encode(policy)) == (policy, []))
    }

    @Test func fileIsSortedOneNetworkPerLine() {
        let policy = Policy(networks: [
            NetworkKey("wired:aa:bb:cc:dd:ee:ff")!: NetworkPolicy(isConstrained: true),
            NetworkKey("wifi:Home%20Net")!: NetworkPolicy(isConstrained: true, isExpensive: false),
            NetworkKey("cellular:abc")!: NetworkPolicy(isExpensive: true),
        ])
        let text = String(decoding: PolicyFile.encode(policy), as: UTF8.self)
        #expect(
            text == """
                {
                    "version": 1,
                    "networks": [
                        {"key": "cellular:abc", "constrained": null, "expensive": true},
                        {"key": "wifi:Home%20Net", "constrained": true, "expensive": false},
                        {"key": "wired:aa:bb:cc:dd:ee:ff", "constrained": true, "expensive": null}
                    ]
                }

                """)
    }

    /// A name given before bidirectional and invisible characters were refused stays, and with it the network's
    /// settings: refusing it on load set the whole file aside and lost the network's Low Data Mode.
    @Test func aNameGivenUnderTheOlderRuleIsKeptOnLoad() throws {
        let text =
            #"{"version": 1, "networks": [{"key": "wifi:Cafe", "constrained": true, "name": "Caf\u202Ee\u200B"}]}"#
        let policy = try PolicyFile.decode(Array(text.utf8))
        let settings = policy[try #require(NetworkKey("wifi:Cafe"))]
        #expect(settings == NetworkPolicy(isConstrained: true, name: "Caf\u{202E}e\u{200B}"))
        #expect(!NetworkPolicy.isValidName("Caf\u{202E}e"), "a new name with them is still refused")
        // Control characters were never allowed: such a file is damaged.
        let control = #"{"version": 1, "networks": [{"key": "wifi:Cafe", "constrained": true, "name": "a\u001bb"}]}"#
        #expect(throws: PolicyFileError.self) { try PolicyFile.decode(Array(control.utf8)) }
    }

    @Test func unknownFieldsAndAbsentFlagsAreAccepted() throws {
        let text =
            #"{"version": 1, "comment": "hand-edited", "networks": [{"key": "wifi:a", "displayName": "A"}, "#
            + #"{"key": "wifi:b", "expensive": true}]}"#
        #expect(
            try PolicyFile.decode(Array(text.utf8))
                == Policy(networks: [NetworkKey("wifi:b")!: NetworkPolicy(isExpensive: true)]))
    }

    @Test(arguments: [
        ("", PolicyFileError.notJSON(offset: 0, reason: "unexpected end of file")),
        ("garbage", .notJSON(offset: 0, reason: "unexpected character")),
        (#"{"version": 1, "networks": ["#, .notJSON(offset: 28, reason: "unexpected end of file")),
        (
            #"{"version": 1, "networks": []} x"#,
            .notJSON(offset: 31, reason: "unexpected text after the end of the document")
        ),
        ("[]", .notPolicyFile(reason: "the top level is an array, not an object")),
        (#"{"networks": []}"#, .notPolicyFile(reason: "it has no single whole \"version\" number")),
        (#"{"version": "1", "networks": []}"#, .notPolicyFile(reason: "it has no single whole \"version\" number")),
        (#"{"version": 1.5, "networks": []}"#, .notPolicyFile(reason: "it has no single whole \"version\" number")),
        (#"{"version": 0, "networks": []}"#, .notPolicyFile(reason: "version 0 was never written by pathmond")),
        (#"{"version": 2, "networks": "x"}"#, .newerVersion(2)),
        (#"{"version": 1}"#, .notPolicyFile(reason: "it has no single \"networks\" array")),
        (#"{"version": 1, "networks": {}}"#, .notPolicyFile(reason: "it has no single \"networks\" array")),
        (#"{"version": 1, "networks": [3]}"#, .badEntry(index: 0, reason: "it is a number, not an object")),
        (
            #"{"version": 1, "networks": [{"key": "lte:x"}]}"#,
            .badEntry(index: 0, reason: "\"lte:x\" is not a valid network key")
        ),
        (
            #"{"version": 1, "networks": [{"key": "wifi:%zz"}]}"#,
            .badEntry(index: 0, reason: "\"wifi:%zz\" is not a valid network key")
        ),
        (
            #"{"version": 1, "networks": [{"key": "wifi:a", "constrained": "yes"}]}"#,
            .badEntry(index: 0, reason: "\"constrained\" of wifi:a is a string, not true, false or null")
        ),
        (
            #"{"version": 1, "networks": [{"key": "wifi:a"}, {"key": "wifi:a", "expensive": true}]}"#,
            .badEntry(index: 1, reason: "network wifi:a is listed more than once")
        ),
    ])
    func damagedFileIsRefused(text: String, expected: PolicyFileError) {
        #expect(throws: expected) { try PolicyFile.decode(Array(text.utf8)) }
    }

    @Test func invalidUTF8InsideJSONIsRefused() {
        let bytes = Array(#"{"version": 1, "networks": [{"key": "wifi:"#.utf8) + [0xff] + Array(#""}]}"#.utf8)
        #expect(throws: PolicyFileError.self) { try PolicyFile.decode(bytes) }
    }

    @Test func errorsReadAsSentences() {
        #expect(
            PolicyFileError.newerVersion(3).description
                == "the policy file has format version 3, written by a newer pathmond; this one reads version 1 only")
        #expect(
            PolicyFileError.badEntry(index: 0, reason: "it is a number, not an object").description
                == "network entry 1 of the policy file is unusable: it is a number, not an object")
    }
}
