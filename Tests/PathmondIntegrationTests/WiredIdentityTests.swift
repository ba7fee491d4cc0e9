// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathMonitor
import Testing

/// A wired network is known by its gateway's link-layer address, learnt from the kernel's neighbour table after a
/// real ARP exchange: a constrained tether stays constrained, and another LAN on the same port does not inherit it.
@Suite(.serialized) struct WiredIdentityTests {
    /// Sends one datagram to the gateway from inside the namespace, which makes the kernel resolve it by ARP.
    static func resolveGateway(_ namespace: NetworkNamespace, _ gateway: String) throws {
        try runCommand(namespace.exec + ["bash", "-c", "echo > /dev/udp/\(gateway)/9"], check: false)
    }

    static func peerAddress(_ namespace: NetworkNamespace, _ peer: String) throws -> String {
        try namespace.farIP("-br link show dev \(peer)").output.split(separator: " ", omittingEmptySubsequences: true)[
            2
        ]
        .lowercased()
    }

    @Test func constrainedTetherIsKnownByItsGateway() async throws {
        let scenario = try Scenario.start { namespace in
            try namespace.addWiredUplink(routed: true)
            try namespace.farIP("address add 192.0.2.1/24 dev eth0-peer")
        }
        defer { #expect(scenario.tearDown() == 0) }
        let socket = scenario.daemon.socketPath
        let gatewayMAC = try Self.peerAddress(scenario.namespace, "eth0-peer")
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }

        try Self.resolveGateway(scenario.namespace, "192.0.2.1")
        let key = "wired:\(gatewayMAC)"
        try await eventually("eth0's network identified") {
            try PathmondConnection(socketPath: socket).interfaces().first { $0.name == "eth0" }?.network == key
        }
        let set = try runCommand([product("pathctl"), "set-constrained", "eth0", "--socket", socket])
        #expect(set.output.contains(key))
        _ = try await scenario.client.log.nextPath { $0.isConstrained }

        // Another network behind the same port: a new gateway (another MAC) answers for the same address.
        try scenario.namespace.farIP("link set eth0-peer address 02:00:00:00:aa:02")
        try scenario.namespace.ip("neigh flush dev eth0")
        try Self.resolveGateway(scenario.namespace, "192.0.2.1")
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied && !$0.isConstrained }
        let networks = try PathmondConnection(socketPath: socket).networks()
        #expect(networks.first { $0.key == key }?.constrained == true, "the tether is still remembered")
        #expect(networks.contains { $0.key == "wired:02:00:00:00:aa:02" && $0.constrained == nil })
    }

    /// No datagram of the test's own: pathmond has the kernel resolve the gateway itself. The gateway answers only
    /// after its first resolution failed (it had no address yet), so only asking again finds it.
    @Test func aGatewayThatAnswersLateIsFoundWithoutTraffic() async throws {
        let scenario = try Scenario.start { namespace in try namespace.addWiredUplink(routed: true) }
        defer { #expect(scenario.tearDown() == 0) }
        let socket = scenario.daemon.socketPath
        let gatewayMAC = try Self.peerAddress(scenario.namespace, "eth0-peer")
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
        // The kernel's own ARP retries give up after about three seconds: the entry is FAILED by then.
        try await eventually(timeout: .seconds(10), "the first resolution failed") {
            try scenario.namespace.ip("neigh show 192.0.2.1 dev eth0").output.contains("FAILED")
        }
        try scenario.namespace.farIP("address add 192.0.2.1/24 dev eth0-peer")
        try await eventually(timeout: .seconds(40), "eth0's network identified") {
            try PathmondConnection(socketPath: socket).interfaces().first { $0.name == "eth0" }?.network
                == "wired:\(gatewayMAC)"
        }
    }

    /// Without CAP_NET_ADMIN (a container's default) the kernel refuses to resolve: pathmond says so once, and
    /// identifies the network as soon as the kernel learns the gateway from other traffic.
    @Test func withoutNetAdminTheNetworkIsIdentifiedFromOtherTraffic() async throws {
        let scenario = try Scenario.start(
            launcher: ["setpriv", "--bounding-set=-net_admin", "--inh-caps=-net_admin"]
        ) { namespace in
            try namespace.addWiredUplink(routed: true)
            try namespace.farIP("address add 192.0.2.1/24 dev eth0-peer")
        }
        defer { #expect(scenario.tearDown() == 0) }
        let socket = scenario.daemon.socketPath
        let gatewayMAC = try Self.peerAddress(scenario.namespace, "eth0-peer")
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
        try await eventually("the refusal is logged") {
            scenario.daemon.log.contains("pathmond runs without CAP_NET_ADMIN")
        }
        #expect(try PathmondConnection(socketPath: socket).interfaces().first { $0.name == "eth0" }?.network == nil)

        try Self.resolveGateway(scenario.namespace, "192.0.2.1")
        try await eventually("eth0's network identified") {
            try PathmondConnection(socketPath: socket).interfaces().first { $0.name == "eth0" }?.network
                == "wired:\(gatewayMAC)"
        }
        #expect(scenario.daemon.log.components(separatedBy: "without CAP_NET_ADMIN").count == 2, "said once")
    }
}
