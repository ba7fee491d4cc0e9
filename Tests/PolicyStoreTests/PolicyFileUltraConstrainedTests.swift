// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

@testable import PolicyStore

/// `ultraConstrained` in the policy file: written only when set, read back, and refused when not a boolean.
@Suite struct PolicyFileUltraConstrainedTests {
    static let key = NetworkKey("wifi:Starlink")!

    @Test(arguments: [true, false]) func aMarkRoundTrips(value: Bool) throws {
        var policy = Policy()
        policy[Self.key] = NetworkPolicy(isConstrained: true, isUltraConstrained: value)
        let bytes = PolicyFile.encode(policy)
        #expect(String(decoding: bytes, as: UTF8.self).contains("\"ultraConstrained\": \(value)"))
        #expect(try PolicyFile.decode(bytes) == policy)
    }

    @Test func anEntryWithoutItIsWrittenAsBefore() {
        var policy = Policy()
        policy[Self.key] = NetworkPolicy(isConstrained: true)
        #expect(!String(decoding: PolicyFile.encode(policy), as: UTF8.self).contains("ultra"))
    }

    @Test func aValueThatIsNotABooleanIsDamage() {
        let text = #"{"version": 1, "networks": [{"key": "wifi:Starlink", "ultraConstrained": "yes"}]}"#
        #expect(throws: PolicyFileError.self) { try PolicyFile.decode(Array(text.utf8)) }
    }
}
