// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathMonitor
import Testing

/// A wired network is known as soon as its default route is: pathmond has the kernel resolve the gateway itself,
/// so Low Data Mode can be set on a link nothing has talked through yet, and applies again right after a flap.
/// The test sends no traffic of its own: only pathmond's request makes the kernel resolve the gateway.
@Suite(.serialized) struct GatewayResolutionTests {
    /// eth0 with its default route via 192.0.2.1, the peer's address on the far side.
    private static func routedThroughThePeer(
        _ prepare: (NetworkNamespace) throws -> Void = { _ in }
    ) throws -> Scenario {
        try Scenario.start { namespace in
            try namespace.addWiredUplink(routed: true)
            try namespace.farIP("address add 192.0.2.1/24 dev eth0-peer")
            try prepare(namespace)
        }
    }

    @Test func setConstrainedWorksOnAFreshWiredLinkAndAgainAfterAFlap() async throws {
        let scenario = try Self.routedThroughThePeer()
        defer { #expect(scenario.tearDown() == 0) }
        let socket = scenario.daemon.socketPath
        let mac = try WiredIdentityTests.peerAddress(scenario.namespace, "eth0-peer")
        let key = "wired:\(mac)"
        try await eventually("eth0's network identified without traffic") {
            try PathmondConnection(socketPath: socket).interfaces().first { $0.name == "eth0" }?.network == key
        }
        let set = try runCommand([product("pathctl"), "set-constrained", "eth0", "--socket", socket])
        #expect(set.status == 0 && set.output.contains(key))
        let log = scenario.client.log
        _ = try await log.nextPath { $0.isConstrained }

        // A flap: the kernel forgets the neighbour and the route; the route comes back and so must the mark.
        try scenario.namespace.ip("link set eth0 down")
        _ = try await log.nextPath { $0.status == .unsatisfied }
        try scenario.namespace.ip("link set eth0 up")
        let started = ContinuousClock.now
        try scenario.namespace.ip("route add default via 192.0.2.1 dev eth0")
        _ = try await log.nextPath { $0.status == .satisfied && $0.isConstrained }
        print("constrained again \(ContinuousClock.now - started) after the default route returned")
    }

    /// pathmond keeps a gateway's entry when its route goes, for when it comes back (not asking the kernel again
    /// before the path is published). What the kernel says of the entry meanwhile must hold: a new link-layer
    /// address is the network the route returns to, and an entry the kernel dropped is resolved again.
    @Test func aGatewayChangedWhileItsRouteWasAwayIsSeenWhenItReturns() async throws {
        let scenario = try Self.routedThroughThePeer()
        defer { #expect(scenario.tearDown() == 0) }
        let socket = scenario.daemon.socketPath
        func network() throws -> String? {
            try PathmondConnection(socketPath: socket).interfaces().first { $0.name == "eth0" }?.network
        }
        let first = try WiredIdentityTests.peerAddress(scenario.namespace, "eth0-peer")
        try await eventually("eth0's network identified") { try network() == "wired:\(first)" }

        // Another router takes the gateway's address while the route is away; the kernel learns it (announced).
        let second = "02:00:00:00:00:42"
        try scenario.namespace.ip("route del default via 192.0.2.1 dev eth0")
        try await eventually("the network gone with the route") { try network() == nil }
        try scenario.namespace.farIP("link set eth0-peer address \(second)")
        try scenario.namespace.ip("neigh replace 192.0.2.1 lladdr \(second) dev eth0 nud reachable")
        try scenario.namespace.ip("route add default via 192.0.2.1 dev eth0")
        try await eventually("the route back on the new router's network") { try network() == "wired:\(second)" }

        // The kernel drops the entry while the route is away: it is resolved again (the peer answers ARP).
        try scenario.namespace.ip("route del default via 192.0.2.1 dev eth0")
        try await eventually("the network gone with the route") { try network() == nil }
        try scenario.namespace.ip("neigh del 192.0.2.1 dev eth0")
        try scenario.namespace.farIP("link set eth0-peer address \(first)")
        try scenario.namespace.ip("route add default via 192.0.2.1 dev eth0")
        try await eventually("the route back, its gateway resolved again") { try network() == "wired:\(first)" }
    }

    /// What a host's kernel says all day changes no path: a LAN host's entry and the gateway's moving between NUD
    /// states, the address renewed with new lifetimes. The subscriber hears nothing and the history records
    /// nothing until the route goes, which is the next thing both see.
    @Test func aLANsChurnAndARenewalChangeNothing() async throws {
        let scenario = try Self.routedThroughThePeer()
        defer { #expect(scenario.tearDown() == 0) }
        let socket = scenario.daemon.socketPath
        let mac = try WiredIdentityTests.peerAddress(scenario.namespace, "eth0-peer")
        try await eventually("eth0's network identified") {
            try PathmondConnection(socketPath: socket).interfaces().first { $0.name == "eth0" }?.network
                == "wired:\(mac)"
        }
        let log = scenario.client.log
        _ = try await log.nextPath { $0.status == .satisfied }
        let seen = await log.all.count
        let recorded = try PathmondConnection(socketPath: socket).history().count
        for state in ["reachable", "stale", "delay", "reachable"] {
            try scenario.namespace.ip("neigh replace 192.0.2.50 lladdr 02:00:00:00:00:50 dev eth0 nud \(state)")
            try scenario.namespace.ip("neigh replace 192.0.2.1 lladdr \(mac) dev eth0 nud \(state)")
        }
        try scenario.namespace.ip("address change 192.0.2.10/24 dev eth0 valid_lft 600 preferred_lft 300")
        try scenario.namespace.ip("address change 192.0.2.10/24 dev eth0 valid_lft 599 preferred_lft 299")
        try scenario.namespace.ip("route del default via 192.0.2.1 dev eth0")
        _ = try await log.nextPath { $0.status == .unsatisfied }
        let heard = await log.all.dropFirst(seen)
        #expect(heard.count == 1, "\(heard)")
        #expect(try PathmondConnection(socketPath: socket).history().count == recorded + 1)
    }

    @Test func onlyGatewaysNeighboursAreKept() async throws {
        let scenario = try Self.routedThroughThePeer { namespace in
            try namespace.ip("neigh add 192.0.2.77 lladdr 02:00:00:00:00:77 dev eth0 nud permanent")
        }
        defer { #expect(scenario.tearDown() == 0) }
        let socket = scenario.daemon.socketPath
        try await eventually("the gateway resolved") {
            try PathmondConnection(socketPath: socket).interfaces().first { $0.name == "eth0" }?.network != nil
        }
        // Another host's entry names nothing: moving the default route to it makes pathmond ask the kernel, which
        // has the entry already (permanent), and the network changes to it.
        try scenario.namespace.ip("route replace default via 192.0.2.77 dev eth0")
        try await eventually("the new gateway's entry looked up") {
            try PathmondConnection(socketPath: socket).interfaces().first { $0.name == "eth0" }?.network
                == "wired:02:00:00:00:00:77"
        }
    }
}
