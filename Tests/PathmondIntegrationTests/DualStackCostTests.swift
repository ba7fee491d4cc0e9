// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import Testing

/// Issue 21: IPv4 over cellular and IPv6 over wired. Every IPv4 packet is metered, so the path is expensive and
/// `pathctl check --unmetered` fails, although the wired interface leads the path.
@Suite(.serialized) struct DualStackPathCostTests {
    @Test func ipv4OverCellularMakesTheDualStackPathExpensive() async throws {
        let scenario = try Scenario.start { namespace in
            try namespace.addVeth("eth0", peer: "eth0-peer")
            try namespace.ip("-6 address add 2001:db8::10/64 dev eth0 nodad")
            try namespace.ip("-6 route add default via 2001:db8::1 dev eth0")
            // ww* is cellular in the test configuration.
            try namespace.addVeth("wwan0", peer: "wwan0-peer")
            try namespace.ip("address add 198.51.100.10/24 dev wwan0")
            try namespace.ip("route add default via 198.51.100.1 dev wwan0")
        }
        defer { #expect(scenario.tearDown() == 0) }
        let path = try await scenario.client.log.nextPath("IPv4 and IPv6 both served") {
            $0.status == .satisfied && $0.supportsIPv4 && $0.supportsIPv6
        }
        #expect(path.availableInterfaces.map(\.name) == ["eth0", "wwan0"], "wired leads")
        #expect(path.isExpensive, "IPv4 leaves over cellular")

        let socket = scenario.daemon.socketPath
        let unmetered = try runCommand([product("pathctl"), "check", "--unmetered", "--socket", socket], check: false)
        #expect(unmetered.status == 2, "\(unmetered.errorOutput)")
        // An app that needs only IPv6 is not charged for IPv4.
        let ipv6 = try runCommand(
            [product("pathctl"), "check", "--unmetered", "--family", "6", "--socket", socket], check: false)
        #expect(ipv6.status == 0, "\(ipv6.errorOutput)")
    }
}
