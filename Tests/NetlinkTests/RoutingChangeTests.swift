// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

@testable import Netlink

/// A route changes only the decisions for destinations its prefix covers: a host route storm must not cost a
/// look-up of the internet's route per batch, and a route that covers it must.
@Suite struct RoutingChangeTests {
    @Test(
        arguments: [
            ([10, 0, 0, 0], 8, [10, 1, 2, 3], true),
            ([10, 0, 0, 0], 8, [11, 1, 2, 3], false),
            ([1, 1, 1, 0], 24, [1, 1, 1, 1], true),
            ([1, 1, 1, 1], 32, [1, 1, 1, 1], true),
            ([1, 1, 1, 2], 32, [1, 1, 1, 1], false),
            ([0, 0, 0, 0], 1, [1, 1, 1, 1], true),  // OpenVPN's def1 halves
            ([128, 0, 0, 0], 1, [1, 1, 1, 1], false),
            ([192, 168, 0, 0], 23, [192, 168, 1, 9], true),
            ([192, 168, 0, 0], 23, [192, 168, 2, 9], false),
            ([0, 0, 0, 0], 0, [1, 1, 1, 1], true),  // a default covers its whole family
            ([0, 0, 0, 0], 0, [0x26, 0x06] + [UInt8](repeating: 0, count: 14), false),  // and no other
            ([UInt8](repeating: 0, count: 16), 0, [1, 1, 1, 1], false),
            ([0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 12), 32, [1, 1, 1, 1], false),  // another family
            (
                [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 12), 32,
                [0x20, 0x01, 0x0d, 0xb8] + [1] + [UInt8](repeating: 0, count: 11), true
            ),
            (
                [0x20, 0x01] + [UInt8](repeating: 0, count: 6) + [0x80] + [UInt8](repeating: 0, count: 7), 65,
                [0x20, 0x01] + [UInt8](repeating: 0, count: 6) + [0xC0] + [UInt8](repeating: 0, count: 7), true
            ),  // past the first word
            (
                [0x20, 0x01] + [UInt8](repeating: 0, count: 6) + [0x80] + [UInt8](repeating: 0, count: 7), 65,
                [0x20, 0x01] + [UInt8](repeating: 0, count: 14), false
            ),
            (
                [0x20, 0x01] + [UInt8](repeating: 0, count: 13) + [1], 128,
                [0x20, 0x01] + [UInt8](repeating: 0, count: 13) + [1], true
            ),
            (
                [0x20, 0x01] + [UInt8](repeating: 0, count: 13) + [1], 128,
                [0x20, 0x01] + [UInt8](repeating: 0, count: 13) + [3], false
            ),
            (
                [0x20, 0x01] + [UInt8](repeating: 0, count: 13) + [1], 127,
                [0x20, 0x01] + [UInt8](repeating: 0, count: 13) + [0], true
            ),
        ] as [([UInt8], Int, [UInt8], Bool)])
    func prefixCoversAddress(prefix: [UInt8], length: Int, address: [UInt8], covers: Bool) throws {
        let destination = try #require(IPAddress(bytes: address))
        #expect(RoutingChange(prefix: prefix, length: length).affects(destination) == covers)
    }
}
