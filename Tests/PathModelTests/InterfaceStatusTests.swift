// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PathModel

/// A status is a value though its fields sit in a shared box: a copy changed leaves the original as it was, and
/// equality and hashing are the fields', whether two statuses share a box or not.
@Suite struct InterfaceStatusTests {
    private func status(_ name: String = "eth0") -> InterfaceStatus {
        InterfaceStatus(
            link: Link(index: 2, name: name, flags: [.up, .running], operState: .up),
            interfaceClass: InterfaceClass(kind: .wired, isExpensive: false), readiness: .usable, addresses: [],
            routes: [], supportedFamilies: [.ipv4])
    }

    @Test func aChangedCopyLeavesTheOriginal() {
        let original = status()
        var copy = original
        #expect(copy == original)
        copy.isExpensive = true
        copy.link.name = "eth1"
        copy.kernelGateways[.ipv4] = IPAddress("192.0.2.1")
        #expect(original.isExpensive == false)
        #expect(original.link.name == "eth0")
        #expect(original.kernelGateways[.ipv4] == nil)
        #expect(copy.isExpensive && copy.link.name == "eth1" && copy.kernelGateways[.ipv4] == IPAddress("192.0.2.1"))
        #expect(copy != original)
    }

    @Test func equalityAndHashAreTheFields() {
        let one = status()
        let other = status()
        #expect(one == other, "equal fields in two boxes")
        #expect(one.hashValue == other.hashValue)
        #expect(Set([one, other]).count == 1)
        var changed = other
        changed.captivePortal = .captive
        #expect(changed != one)
        changed.captivePortal = one.captivePortal
        #expect(changed == one, "changed and changed back")
        #expect(status("wlan0") != one)
    }
}
