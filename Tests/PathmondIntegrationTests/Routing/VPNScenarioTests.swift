// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathMonitor
import Testing

/// VPNs set up the way their tools do it, and what the path must say: where the kernel sends the next packet.
/// tun devices stand in for WireGuard (this kernel has no wireguard module), with the same routes and rules
/// wg-quick writes.
@Suite(.serialized) struct VPNScenarioTests {
    /// An uplink and a held-open tun device named `tunnel` with an address, before the daemon starts.
    static func start(tunnel: String = "wg0", configuration: String = Scenario.testConfiguration) throws -> (
        Scenario, TunnelHolder
    ) {
        let scenario = try Scenario.start(configuration: configuration) { try $0.addWiredUplink(routed: true) }
        do {
            let holder = try TunnelHolder(scenario.namespace, names: [tunnel])
            try scenario.namespace.ip("link set \(tunnel) up")
            try scenario.namespace.ip("address add 10.8.0.2/32 dev \(tunnel)")
            return (scenario, holder)
        } catch {
            _ = scenario.tearDown()
            throw error
        }
    }

    @Test func wgQuickFullTunnel() async throws {
        let (scenario, holder) = try Self.start()
        defer {
            holder.release()
            #expect(scenario.tearDown() == 0)
        }
        let namespace = scenario.namespace
        let log = scenario.client.log
        _ = try await log.nextPath { $0.interfaceNames == ["eth0"] }
        // What wg-quick writes for AllowedIPs = 0.0.0.0/0: the main table still says eth0.
        try namespace.ip("route add default dev wg0 table 51820")
        try namespace.ip("rule add not fwmark 51820 table 51820")
        try namespace.ip("rule add table main suppress_prefixlength 0")
        #expect(try runCommand(["ip", "-n", namespace.name, "route", "get", "1.1.1.1"]).output.contains("dev wg0"))
        let tunnelled = try await log.nextPath { $0.interfaceNames.first == "wg0" }
        #expect(tunnelled.interfaceNames == ["wg0", "eth0"])
        #expect(tunnelled.availableInterfaces.first?.isTunnel == true)
        #expect(tunnelled.availableInterfaces.last?.isTunnel == false)

        // wg-quick down: the rules go, and with them the tunnel's lead.
        try namespace.ip("rule del not fwmark 51820 table 51820")
        try namespace.ip("rule del table main suppress_prefixlength 0")
        _ = try await log.nextPath { $0.interfaceNames.first == "eth0" }
    }

    @Test func wgQuickSplitTunnel() async throws {
        let (scenario, holder) = try Self.start()
        defer {
            holder.release()
            #expect(scenario.tearDown() == 0)
        }
        let namespace = scenario.namespace
        // AllowedIPs = 10.100.0.0/16: a route in the main table, no default, no rules.
        try namespace.ip("route add 10.100.0.0/16 dev wg0")
        let log = scenario.client.log
        let path = try await log.nextPath { $0.status == .satisfied }
        #expect(path.interfaceNames == ["eth0"], "the internet still leaves by eth0")

        // A connection into the tunnel's network is viable over wg0 though wg0 has no default route.
        let flow = FlowLog(
            FlowMonitor(
                flow: Flow(
                    interfaceName: "wg0", localAddress: IPAddress("10.8.0.2")!, remoteAddress: IPAddress("10.100.1.1")!),
                socketPath: scenario.daemon.socketPath, retryDelay: .milliseconds(50)))
        defer { flow.monitor.cancel() }
        let status = try await flow.next("viable into the tunnel") { $0.isViable }
        #expect(!status.betterPathAvailable, "the kernel sends 10.100.1.1 through wg0: nothing is better")
    }

    @Test func openVPNDef1() async throws {
        let (scenario, holder) = try Self.start(tunnel: "tun0")
        defer {
            holder.release()
            #expect(scenario.tearDown() == 0)
        }
        let namespace = scenario.namespace
        let log = scenario.client.log
        _ = try await log.nextPath { $0.interfaceNames == ["eth0"] }
        // redirect-gateway def1: the server by the old gateway, then both halves of the internet into the tunnel.
        try namespace.ip("route add 203.0.113.5/32 via 192.0.2.1 dev eth0")
        try namespace.ip("route add 0.0.0.0/1 via 10.8.0.1 dev tun0 onlink")
        try namespace.ip("route add 128.0.0.0/1 via 10.8.0.1 dev tun0 onlink")
        let path = try await log.nextPath { $0.interfaceNames.first == "tun0" }
        #expect(path.interfaceNames == ["tun0", "eth0"])
        #expect(path.gateways == [IPAddress("10.8.0.1")!])
        try namespace.ip("route del 0.0.0.0/1")
        try namespace.ip("route del 128.0.0.0/1")
        _ = try await log.nextPath { $0.interfaceNames == ["eth0"] }
    }

    @Test func tunnelOverCellularIsExpensive() async throws {
        let scenario = try Scenario.start { namespace in
            try namespace.addVeth("wwan0", peer: "wwan0-peer")
            try namespace.ip("address add 203.0.113.10/24 dev wwan0")
            try namespace.ip("route add 198.18.0.9/32 via 203.0.113.1 dev wwan0")
        }
        defer { #expect(scenario.tearDown() == 0) }
        let namespace = scenario.namespace
        let holder = try TunnelHolder(namespace, names: ["tun0"])
        defer { holder.release() }
        try namespace.ip("link set tun0 up")
        try namespace.ip("address add 10.8.0.2/32 dev tun0")
        // A VPN over the cellular link (configured by name as cellular): def1 into the tunnel. The kernel does not
        // know a tun device's far end, so its carrier is the best interface that is not a tunnel: cellular.
        try namespace.ip("route add 0.0.0.0/1 dev tun0")
        try namespace.ip("route add 128.0.0.0/1 dev tun0")
        try namespace.ip("route add default via 203.0.113.1 dev wwan0 metric 700")
        let log = scenario.client.log
        let path = try await log.nextPath { $0.interfaceNames == ["tun0", "wwan0"] }
        #expect(path.isExpensive, "the tunnel rides on cellular")
        #expect(path.availableInterfaces.first?.isTunnel == true)
        let interfaces = try PathmondConnection(socketPath: scenario.daemon.socketPath).interfaces()
        let tunnel = try #require(interfaces.first { $0.name == "tun0" })
        #expect(tunnel.expensiveSource == "tunnelCarrier")
        #expect(tunnel.tunnelCarrier == "wwan0")

        // A wired uplink arrives and carries the tunnel instead: not expensive any more.
        try namespace.addWiredUplink(routed: false)
        try namespace.ip("route add default via 192.0.2.1 dev eth0 metric 100")
        _ = try await log.nextPath { $0.interfaceNames.first == "tun0" && !$0.isExpensive }
    }

    @Test func flowToASpecificRouteStaysViableWhenTheDefaultGoes() async throws {
        let scenario = try Scenario.start { namespace in
            try namespace.addWiredUplink(routed: true)
            try namespace.ip("route add 10.0.0.0/8 via 192.0.2.254 dev eth0")
        }
        defer { #expect(scenario.tearDown() == 0) }
        let flow = FlowLog(
            FlowMonitor(
                flow: Flow(
                    interfaceName: "eth0", localAddress: IPAddress("192.0.2.10")!,
                    remoteAddress: IPAddress("10.1.2.3")!),
                socketPath: scenario.daemon.socketPath, retryDelay: .milliseconds(50)))
        defer { flow.monitor.cancel() }
        _ = try await flow.next("viable") { $0.isViable }
        try scenario.namespace.ip("route del default via 192.0.2.1 dev eth0")
        _ = try await scenario.client.log.nextPath { $0.status == .unsatisfied }
        // The path to the internet is gone; the route to 10/8 is not, and the flow's status never changed.
        try await Task.sleep(for: .milliseconds(300))
        #expect(flow.monitor.currentStatus?.isViable == true)

        // A rule that refuses everything (a kill switch): the kernel would drop the flow's next packet.
        try scenario.namespace.ip("rule add prohibit pref 100")
        _ = try await flow.next("not viable behind the kill switch") { !$0.isViable }
    }
}
