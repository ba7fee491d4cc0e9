// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import Netlink

/// The link-layer address as `ip neigh` prints it: two lower-case digits per byte, colons between.
@Suite struct HardwareAddressTextTests {
    @Test func printsEachByteAsTwoDigits() {
        #expect(LinkConversion.hardwareAddressText([]) == "")
        #expect(LinkConversion.hardwareAddressText([0x9c]) == "9c")
        #expect(LinkConversion.hardwareAddressText([0x02, 0xab, 0x0f, 0x00, 0xff, 0x10]) == "02:ab:0f:00:ff:10")
        // InfiniBand: 20 bytes.
        let infiniBand = (0..<20).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined(separator: ":")
        #expect(LinkConversion.hardwareAddressText(Array(0..<20)) == infiniBand)
    }
}
