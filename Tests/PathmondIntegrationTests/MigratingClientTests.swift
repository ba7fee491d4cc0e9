// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The runnable example, end to end: `migrating-client` holds a TCP connection over cellular, and when Wi-Fi comes
/// up it opens a second connection over Wi-Fi, moves its traffic there once connected, and only then closes the
/// first. A server in the far namespace, reachable over both, says which connection each line arrives on.
///
/// Topology: wlan0 (Wi-Fi, 198.51.100.10) and wwan0 (cellular, 203.0.113.10) as in `FlowTests`; their far ends
/// are the gateways 198.51.100.1 and 203.0.113.1, and the server listens on 192.0.2.80, an address on the far
/// namespace's loopback, so either path reaches it.
@Suite(.serialized) struct MigratingClientTests {
    static let serverAddress = "192.0.2.80"
    static let serverPort = 7000
    static let wifiPeer = FlowTests.wifiAddress + ":"
    static let cellularPeer = FlowTests.cellularAddress + ":"

    /// A scenario with the server in its far namespace and the client started in it, stopped together.
    struct Rig {
        let scenario: Scenario
        let server: ProcessTranscript
        let client: ProcessTranscript

        /// Stops the client, the server, then the daemon; the daemon's exit status.
        func tearDown() -> Int32 {
            client.terminate()
            server.terminate()
            return scenario.tearDown()
        }
    }

    /// Cellular up, Wi-Fi down, the server listening and the client started with `arguments`. The far side routes
    /// both links, unless `wifiGateway` is false: then nothing answers on Wi-Fi's far end, and connections over it
    /// cannot complete.
    static func start(wifiGateway: Bool = true, arguments: [String] = []) throws -> Rig {
        let scenario = try Scenario.start { namespace in
            try FlowTests.addWifi(namespace, up: false)
            try FlowTests.addCellular(namespace)
            try namespace.farIP("link set lo up")
            try namespace.farIP("address add \(serverAddress)/32 dev lo")
            try namespace.farIP("address add 203.0.113.1/24 dev wwan0-peer")
            if wifiGateway { try namespace.farIP("address add 198.51.100.1/24 dev wlan0-peer") }
        }
        do {
            let server = try MigratingClientServer.start(
                in: scenario.namespace.far, address: serverAddress, port: serverPort)
            let client = try ProcessTranscript(
                "migrating-client",
                scenario.namespace.exec + [
                    product("migrating-client"), "--server", "\(serverAddress):\(serverPort)",
                    "--socket", scenario.daemon.socketPath,
                ] + arguments)
            return Rig(scenario: scenario, server: server, client: client)
        } catch {
            _ = scenario.tearDown()
            throw error
        }
    }

    static func bringWifiUp(_ namespace: NetworkNamespace) throws {
        try namespace.farIP("link set wlan0-peer up")
        try namespace.ip("link set wlan0 up")
        try namespace.ip("route add default via 198.51.100.1 dev wlan0 metric 600")
    }

    @Test func movesToWifiOnlyOnceTheNewConnectionIsReady() throws {
        let rig = try Self.start()
        defer { #expect(rig.tearDown() == 0) }
        let (server, client) = (rig.server, rig.client)

        try client.next(startingWith: "connected via wwan0 \(Self.cellularPeer)")
        try client.next(startingWith: "viable")
        try server.next(startingWith: "line \(Self.cellularPeer)")

        try Self.bringWifiUp(rig.scenario.namespace)
        try client.next(startingWith: "better path: wlan0")
        try client.next(startingWith: "opening a connection via wlan0")
        let connected = try client.next(startingWith: "connected via wlan0 \(Self.wifiPeer)")
        try client.next(startingWith: "migrated to wlan0")
        let wifiPeer = String(connected.split(separator: " ")[3])

        // The new connection is up before the old one goes, and the lines follow it.
        try server.next(startingWith: "accept \(wifiPeer)")
        let closed = try server.next(startingWith: "close \(Self.cellularPeer)")
        let cellularPeer = String(closed.split(separator: " ")[1])
        for _ in 0..<5 { try server.next(startingWith: "line \(wifiPeer)") }

        #expect(client.terminate() == 0, "SIGTERM ends the client cleanly")
        #expect(client.lines.last == "stopped")
        try server.next(startingWith: "close \(wifiPeer)")

        let events = server.lines.compactMap(ServerEvent.init)
        let acceptedWifi = try #require(events.firstIndex(of: .accept(peer: wifiPeer)))
        let closedCellular = try #require(events.firstIndex(of: .close(peer: cellularPeer)))
        #expect(acceptedWifi < closedCellular, "the old connection closes only after the new one is established")
        let numbers = { (peer: String) in
            events.compactMap { event -> Int? in
                guard case .line(peer, let number) = event else { return nil }
                return number
            }
        }
        let (before, after) = (numbers(cellularPeer), numbers(wifiPeer))
        #expect(!before.isEmpty && !after.isEmpty)
        #expect(before.max()! < after.min()!, "every line after the move goes over Wi-Fi")
        #expect(before + after == Array(1...(before.count + after.count)), "no line lost or repeated in the move")
        #expect(
            !events[closedCellular...].contains { if case .line(cellularPeer, _) = $0 { true } else { false } },
            "nothing arrives on the old connection once it is closed")
        #expect(
            !client.lines.contains("better path: wwan0"), "on Wi-Fi, cellular is never better: \(client.lines)")
    }

    @Test func keepsTheOldConnectionWhenTheNewOneFails() throws {
        let rig = try Self.start(wifiGateway: false, arguments: ["--connect-timeout", "1"])
        defer { #expect(rig.tearDown() == 0) }
        let (server, client) = (rig.server, rig.client)

        let connected = try client.next(startingWith: "connected via wwan0 \(Self.cellularPeer)")
        let cellularPeer = String(connected.split(separator: " ")[3])
        try Self.bringWifiUp(rig.scenario.namespace)
        try client.next(startingWith: "better path: wlan0")
        // Nothing answers on Wi-Fi's far end: the connection never completes, and the client stays where it is.
        let failed = try client.next(startingWith: "migration to wlan0 failed:")
        #expect(failed.hasSuffix("staying on wwan0"), "\(failed)")
        server.skipToNow()
        try server.next(startingWith: "line \(cellularPeer)")
        #expect(!server.lines.contains { $0.hasPrefix("close ") }, "the old connection stays open")
        #expect(!client.lines.contains { $0.hasPrefix("migrated") })
    }

    @Test func waitsForAPathItMayUse() throws {
        let rig = try Self.start(arguments: ["--no-expensive"])
        defer { #expect(rig.tearDown() == 0) }
        let (server, client) = (rig.server, rig.client)

        // Only cellular is up, and the client may not use it: no connection until Wi-Fi comes.
        try client.next(startingWith: "waiting for a path: onlyExpensiveInterfaces")
        try Self.bringWifiUp(rig.scenario.namespace)
        try client.next(startingWith: "connected via wlan0 \(Self.wifiPeer)")
        try server.next(startingWith: "accept \(Self.wifiPeer)")
        #expect(!server.lines.contains { $0.hasPrefix("accept \(Self.cellularPeer)") })
    }
}
