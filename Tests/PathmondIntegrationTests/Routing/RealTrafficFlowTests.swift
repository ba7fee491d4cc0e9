// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathMonitor
import Testing

/// Issue 40: a flow's viability and better path follow where its packets really go. The truth is real traffic:
/// connected UDP sockets (bound with SO_BINDTODEVICE and not, IPv4 and IPv6) send a burst after every step, and
/// the interface whose transmit counter moved is where the kernel sent them; a fresh unbound socket to the same
/// peer is where a new connection goes (the better path). pathmond's `isViable`, `betterPathAvailable` and
/// `betterInterface` must agree within a moment of each step.
@Suite(.serialized) struct RealTrafficFlowTests {
    /// Veth uplinks, the N-th of each pair numbered `network`: 10.N.0.2/24 and 2001:db8:N::2/64, their gateways
    /// (.1, ::1) answering from the far side.
    static func uplinks(_ namespace: NetworkNamespace, _ links: [(name: String, network: Int)]) throws {
        for (name, network) in links {
            try namespace.addVeth(name, peer: "\(name)-peer")
            try namespace.ip("address add 10.\(network).0.2/24 dev \(name)")
            try namespace.ip("address add 2001:db8:\(network)::2/64 dev \(name) nodad")
            try namespace.farIP("address add 10.\(network).0.1/24 dev \(name)-peer")
            try namespace.farIP("address add 2001:db8:\(network)::1/64 dev \(name)-peer nodad")
        }
    }

    /// IPv4 and IPv6 defaults over `name` (network `network`) at `metric`, as `ip` arguments.
    static func defaults(_ name: String, _ network: Int, metric: Int, verb: String = "add") -> [String] {
        [
            "route \(verb) default via 10.\(network).0.1 dev \(name) metric \(metric)",
            "-6 route \(verb) default via 2001:db8:\(network)::1 dev \(name) metric \(metric)",
        ]
    }

    /// A daemon over these uplinks (carrier waited for), an optional drained tun device, the routes (`ip`
    /// arguments), and each socket's flow watched on the interface named beside it.
    struct Setting {
        let scenario: Scenario
        let tunnel: TunnelHolder?
        let sockets: RealSockets
        let flows: [TrafficTruth.TrafficFlow]

        static func start(
            _ links: [(name: String, network: Int)], tunnel: String? = nil, routes: [String],
            sockets: [(RealSockets.Socket, on: String)], withIndexes: Bool = false
        ) async throws -> Setting {
            let scenario = try Scenario.start { try RealTrafficFlowTests.uplinks($0, links) }
            var holder: TunnelHolder?
            do {
                holder = try tunnel.map { try TunnelHolder(scenario.namespace, names: [$0], draining: true) }
                try await NexthopScenarioTests.waitForCarrier(scenario.namespace, links.map(\.name))
                for route in routes { try scenario.namespace.ip(route) }
                let real = try RealSockets(scenario.namespace, sockets.map(\.0))
                let flows = try TrafficTruth.watch(real, on: sockets.map(\.on), scenario, withIndexes: withIndexes)
                return Setting(scenario: scenario, tunnel: holder, sockets: real, flows: flows)
            } catch {
                holder?.release()
                _ = scenario.tearDown()
                throw error
            }
        }

        /// Runs the steps and holds every flow against its traffic after each (`TrafficTruth.follow`).
        func follow(_ steps: [(String, [String])], minimumSettled: Int) async throws {
            try await TrafficTruth.follow(steps, flows, sockets, minimumSettled: minimumSettled)
        }

        func tearDown() -> Int32 {
            for flow in flows { flow.log.monitor.cancel() }
            sockets.release()
            tunnel?.release()
            return scenario.tearDown()
        }
    }

    /// Issue 40, 1: a UDP socket bound to eth2 and connected to 2606:4700:4700::1111 sends out of eth2, though
    /// eth0's default has the lower metric: the kernel holds a bound socket to its device. RTM_GETROUTE with the
    /// flow's source takes the output interface as a mere preference (eth0); without the source it is strict.
    /// The bound IPv6 flow is viable while its socket sends, through a source rule's table too, and not once eth2
    /// has no IPv6 route; the IPv4 and unbound flows beside it stay right.
    @Test func aBoundIPv6FlowIsViableWhileItsSocketSends() async throws {
        let setting = try await Setting.start(
            [("eth0", 0), ("eth2", 2)],
            routes: Self.defaults("eth0", 0, metric: 100) + Self.defaults("eth2", 2, metric: 200),
            sockets: [
                (.init(device: "eth2", local: "2001:db8:2::2", remote: "2606:4700:4700::1111"), "eth2"),
                (.init(device: "eth2", local: "10.2.0.2", remote: "1.1.1.1"), "eth2"),
                (.init(device: nil, local: nil, remote: "2606:4700:4700::1111"), "eth0"),
            ])
        defer { #expect(setting.tearDown() == 0) }
        let namespace = setting.scenario.namespace
        // What RTM_GETROUTE answers: with the source, eth0; without it, eth2.
        #expect(
            try KernelMindTests.kernelDevice(namespace, "2606:4700:4700::1111 from 2001:db8:2::2 oif eth2") == "eth0")
        #expect(try KernelMindTests.kernelDevice(namespace, "2606:4700:4700::1111 oif eth2") == "eth2")

        let eth2IPv6Default = "-6 route add default via 2001:db8:2::1 dev eth2"
        try await setting.follow(
            [
                ("as set up", []),
                ("eth2's IPv6 default gone", ["-6 route del default via 2001:db8:2::1 dev eth2 metric 200"]),
                ("eth2's IPv6 default back", ["\(eth2IPv6Default) metric 200"]),
                (
                    "eth2's IPv6 default only in the table a rule for its address selects",
                    [
                        "-6 route del default via 2001:db8:2::1 dev eth2 metric 200", "\(eth2IPv6Default) table 102",
                        "-6 rule add from 2001:db8:2::2 table 102 pref 100",
                    ]
                ),
                ("eth0's defaults gone", Self.defaults("eth0", 0, metric: 100, verb: "del")),
            ], minimumSettled: 4)
    }

    /// Issue 40, 2: a split-tunnel VPN (172.16.0.0/16 and fd00:16::/48 via vpn0, no default there). A new
    /// connection to 172.16.5.5 goes by vpn0, so vpn0 is the better path for flows bound to eth0 or eth1 (though
    /// the path for the internet does not list it), and nothing is better for the flow on vpn0 itself. Without
    /// the tunnel's routes eth0 is better for the flow on eth1, and nothing for the one on eth0.
    @Test func aSplitTunnelIsTheBetterPathToItsSubnets() async throws {
        let tunnelRoutes = ["route add 172.16.0.0/16 dev vpn0", "-6 route add fd00:16::/48 dev vpn0"]
        let setting = try await Setting.start(
            [("eth0", 0), ("eth1", 1)], tunnel: "vpn0",
            routes: [
                "link set vpn0 up", "address add 10.8.0.2/32 dev vpn0", "-6 address add fd00:8::2/128 dev vpn0 nodad",
            ] + tunnelRoutes + Self.defaults("eth0", 0, metric: 100) + Self.defaults("eth1", 1, metric: 200),
            sockets: [
                (.init(device: "eth1", local: "10.1.0.2", remote: "172.16.5.5"), "eth1"),
                (.init(device: "eth0", local: "10.0.0.2", remote: "172.16.5.5"), "eth0"),
                (.init(device: "eth1", local: "2001:db8:1::2", remote: "fd00:16::5"), "eth1"),
                (.init(device: nil, local: nil, remote: "172.16.5.5"), "vpn0"),
            ])
        defer { #expect(setting.tearDown() == 0) }
        try await setting.follow(
            [
                ("as set up", []),
                ("the tunnel's routes gone", tunnelRoutes.map { $0.replacingOccurrences(of: " add ", with: " del ") }),
                ("the tunnel's routes back", tunnelRoutes),
                ("eth1 preferred for the internet", Self.defaults("eth1", 1, metric: 50)),
            ], minimumSettled: 4)
    }

    /// Issue 40, 4: `ip link set eth1 name wan1` on an up interface. The flows on it (bound and not, both
    /// families) keep sending by it: viable, nothing better, and once eth0 takes the internet, eth0 is better. The
    /// flow bound to eth0 is told the current name of the interface a new connection takes: wan1.
    @Test func aRenamedInterfaceKeepsItsFlows() async throws {
        let setting = try await Setting.start(
            [("eth0", 0), ("eth1", 1)],
            routes: Self.defaults("eth1", 1, metric: 50) + Self.defaults("eth0", 0, metric: 100),
            sockets: [
                (.init(device: "eth1", local: "10.1.0.2", remote: "1.1.1.1"), "eth1"),
                (.init(device: "eth1", local: "2001:db8:1::2", remote: "2606:4700:4700::1111"), "eth1"),
                (.init(device: nil, local: nil, remote: "1.1.1.1"), "eth1"),
                (.init(device: nil, local: nil, remote: "2606:4700:4700::1111"), "eth1"),
                (.init(device: "eth0", local: "10.0.0.2", remote: "1.1.1.1"), "eth0"),
            ])
        defer { #expect(setting.tearDown() == 0) }
        try await setting.follow(
            [
                ("as set up", []),
                ("eth1 renamed wan1", ["link set eth1 name wan1"]),
                ("eth0 takes the internet", Self.defaults("eth0", 0, metric: 10)),
                ("eth0 leaves it again", Self.defaults("eth0", 0, metric: 10, verb: "del")),
                ("wan1 renamed eth9", ["link set wan1 name eth9"]),
            ], minimumSettled: 5)
    }

    /// A client that watches again after a rename, when pathmond restarted meanwhile: the client library sends
    /// the interface's index with its name (`FlowMonitor(connectedSocket:)`), and the restarted daemon takes the
    /// flow to be that interface, though no interface has the name any more.
    @Test func aFlowWatchedAgainAfterARenameKeepsItsInterface() async throws {
        let setting = try await Setting.start(
            [("eth0", 0), ("eth1", 1)],
            routes: Self.defaults("eth1", 1, metric: 50) + Self.defaults("eth0", 0, metric: 100),
            sockets: [
                (.init(device: "eth1", local: "2001:db8:1::2", remote: "2606:4700:4700::1111"), "eth1"),
                (.init(device: nil, local: nil, remote: "1.1.1.1"), "eth1"),
            ], withIndexes: true)
        defer { #expect(setting.tearDown() == 0) }
        try await setting.follow([("eth1 renamed wan1", ["link set eth1 name wan1"])], minimumSettled: 1)
        setting.scenario.daemon.kill()
        try setting.scenario.daemon.start()
        try await setting.follow(
            [("pathmond restarted", []), ("eth0 takes the internet", Self.defaults("eth0", 0, metric: 10))],
            minimumSettled: 2)
    }
}
