// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

@testable import PolicyStore

/// Networks the user named (`pathctl name`): the name is one more field of an entry, in the same version-1 file,
/// so files written before names existed load unchanged and an older pathmond reads a newer file.
@Suite struct PolicyFileNameTests {
    let office = NetworkKey("wired:de:b0:5b:9a:11:94")!

    @Test(arguments: ["Office", "Büro \"2\" \\ ☕", String(repeating: "x", count: 64)])
    func aNameRoundTrips(name: String) throws {
        let policy = Policy(networks: [office: NetworkPolicy(name: name)])
        let bytes = PolicyFile.encode(policy)
        #expect(try PolicyFile.decode(bytes) == policy)
        #expect(String(decoding: bytes, as: UTF8.self).contains("\"version\": 1"))
    }

    @Test func aNameAloneKeepsTheNetwork() {
        var policy = Policy()
        policy[office] = NetworkPolicy(name: "Office")
        #expect(policy.networks[office]?.name == "Office")
        policy[office].name = nil
        #expect(policy.networks.isEmpty, "nothing left to remember")
    }

    @Test func aFileWithoutNamesStillLoads() throws {
        let old = #"{"version": 1, "networks": [{"key": "wifi:Home", "constrained": true, "expensive": null}]}"#
        let policy = try PolicyFile.decode(Array(old.utf8))
        #expect(policy[NetworkKey("wifi:Home")!] == NetworkPolicy(isConstrained: true))
        // And a file without names is written exactly as before names existed.
        #expect(!String(decoding: PolicyFile.encode(policy), as: UTF8.self).contains("name"))
    }

    @Test(arguments: [
        #""name": 3"#, #""name": """#, #""name": "   ""#, #""name": "a\u0007b""#, #""name": "a", "name": "b""#,
        "\"name\": \"" + String(repeating: "x", count: 65) + "\"",
    ])
    func aBadNameIsDamage(field: String) {
        let text = #"{"version": 1, "networks": [{"key": "wifi:Home", "# + field + "}]}"
        #expect(throws: PolicyFileError.self) { try PolicyFile.decode(Array(text.utf8)) }
    }

    @Test func nullNameIsNoName() throws {
        let text = #"{"version": 1, "networks": [{"key": "wifi:Home", "expensive": true, "name": null}]}"#
        #expect(try PolicyFile.decode(Array(text.utf8))[NetworkKey("wifi:Home")!].name == nil)
    }
}
