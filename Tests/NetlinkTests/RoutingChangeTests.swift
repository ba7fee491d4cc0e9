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
    /// The bisection finds exactly what the prefix test finds, for random sets of queries (both families, shared
    /// peers) and random changes (overlapping prefixes, host bits set, defaults): the route follower asks only the
    /// positions it returns while every query has an answer.
    @Test func coveredPositionsAreWhatThePrefixTestCovers() {
        var random = SystemRandomNumberGenerator()
        func address(v6: Bool) -> IPAddress {
            // A small space, so that prefixes cover several queries and peers repeat.
            v6
                ? IPAddress(
                    bytes: [0x20, 0x01, 0x0d, 0xb8, 0, UInt8.random(in: 0...3, using: &random)]
                        + [UInt8](repeating: 0, count: 9) + [UInt8.random(in: 0...7, using: &random)])!
                : IPAddress(bytes: [
                    10, UInt8.random(in: 0...3, using: &random), UInt8.random(in: 0...3, using: &random),
                    UInt8.random(in: 0...7, using: &random),
                ])!
        }
        for _ in 0..<200 {
            let queries = (0..<Int.random(in: 0...60, using: &random)).map { _ in
                let destination = address(v6: Bool.random(using: &random))
                return RouteQuery(
                    destination: destination, source: Bool.random(using: &random) ? nil : destination, uid: 0)
            }.sorted(by: RouteQuery.byPeer)
            let prefixes = (0..<Int.random(in: 1...4, using: &random)).map { _ -> (address: IPAddress, length: Int) in
                let prefix = address(v6: Bool.random(using: &random))
                return (prefix, Int.random(in: 0...prefix.byteCount * 8, using: &random))
            }
            let change = RoutingChange(prefixes: prefixes)
            let expected = queries.indices.filter { change.affects(queries[$0].destination) }
            // `affects` is each prefix's cover, a default route's (length 0) its whole family.
            #expect(
                expected
                    == queries.indices.filter { position in
                        prefixes.contains { queries[position].destination.hasPrefix($0.address, length: $0.length) }
                    })
            #expect(
                change.coveredPositions(inDestinationOrder: queries) == expected,
                "\(prefixes) over \(queries.map(\.destination))")
        }
        #expect(RoutingChange.everything.coveredPositions(inDestinationOrder: []) == nil)
    }
}
