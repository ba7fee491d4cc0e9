// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathMonitor
import PathProtocol
import Testing

/// Hundreds of changes as fast as the kernel takes them: the client must end up with exactly the kernel's
/// final state, however the notifications were batched.
@Suite(.serialized) struct BurstTests {
    @Test func burstEndsInTheKernelsFinalState() async throws {
        let links = ["eth0", "eth1", "eth2", "wlan0"]
        let scenario = try Scenario.start { namespace in
            for (index, name) in links.enumerated() {
                try namespace.addVeth(name, peer: "p\(index)")
            }
        }
        defer { #expect(scenario.tearDown() == 0) }
        let log = scenario.client.log
        _ = try await log.nextPath("the initial path") { _ in true }

        // 4 links x 40 rounds x 4 commands = 640 changes; each round flips addresses and default routes with
        // shifting metrics, so intermediate paths differ.
        var commands: [String] = []
        for round in 0..<40 {
            for (index, name) in links.enumerated() {
                commands.append("address add 10.\(index).\(round).2/24 dev \(name)")
                commands.append("route replace default via 10.\(index).\(round).1 dev \(name) metric \(100 + index)")
                if round < 39 {
                    commands.append("route del default via 10.\(index).\(round).1 dev \(name) metric \(100 + index)")
                    commands.append("address del 10.\(index).\(round).2/24 dev \(name)")
                }
            }
        }
        // Final touches: eth1 gets the best metric, eth2 goes down, and an IPv6 default via wlan0.
        commands += [
            "route replace default via 10.1.39.1 dev eth1 metric 5",
            "route del default via 10.1.39.1 dev eth1 metric 101",
            "link set eth2 down",
            "address add 2001:db8:1::2/64 dev wlan0 nodad",
            "route add default via 2001:db8:1::1 dev wlan0 metric 300",
        ]
        try scenario.namespace.batch(commands)

        let expectedNames = ["eth1", "eth0", "wlan0"]
        let final = try await log.nextPath("the final path") {
            $0.interfaceNames == expectedNames && $0.supportsIPv6
        }
        #expect(final.gateways == [IPAddress("10.1.39.1")!, IPAddress("2001:db8:1::1")!])
        #expect(final.supportsIPv4)

        // The daemon's whole view equals the kernel's: every address and default route, per interface.
        let connection = try PathmondConnection(socketPath: scenario.daemon.socketPath)
        #expect(try connection.path() == final)
        let reported = try connection.interfaces()
        for name in links {
            let interface = try #require(reported.first { $0.name == name })
            let kernelAddresses = try KernelView.addresses(of: name, in: scenario.namespace)
            let global = interface.addresses.filter { $0.scope == "global" }
            #expect(Set(global.map { "\($0.address)/\($0.prefixLength)" }) == kernelAddresses, "\(name)")
            let kernelRoutes = try KernelView.defaultRoutes(of: name, in: scenario.namespace)
            #expect(Set(interface.routes.map { "\($0.gateway ?? "-") \($0.metric)" }) == kernelRoutes, "\(name)")
        }
    }
}

/// The kernel's own account, from `ip -json`, to compare the daemon's against.
enum KernelView {
    struct AddressInfo: Decodable {
        struct Entry: Decodable {
            var local: String
            var prefixlen: Int
            var scope: String
        }
        var addr_info: [Entry]
    }

    struct RouteInfo: Decodable {
        var gateway: String?
        var metric: Int?
        var dev: String?
        var type: String?
    }

    /// Global addresses of one interface, as "address/prefix". Link-local ones are left out: the kernel adds them
    /// when carrier arrives, which linkwatch delays by up to a second, so they may appear between two looks.
    static func addresses(of name: String, in namespace: NetworkNamespace) throws -> Set<String> {
        let output = try namespace.ip("-json address show dev \(name)").output
        let entries = try JSONDecoder().decode([AddressInfo].self, from: Data(output.utf8)).flatMap(\.addr_info)
        return Set(entries.filter { $0.scope == "global" }.map { "\($0.local)/\($0.prefixlen)" })
    }

    /// Default routes out of one interface in every table, both families, as "gateway metric".
    static func defaultRoutes(of name: String, in namespace: NetworkNamespace) throws -> Set<String> {
        var result = Set<String>()
        for family in ["-4", "-6"] {
            let output = try namespace.ip("\(family) -json route show default table all dev \(name)").output
            let routes = try JSONDecoder().decode([RouteInfo].self, from: Data(output.utf8))
            for route in routes where route.type == nil || route.type == "unicast" {
                // ip omits the metric for IPv4 routes with priority 0.
                result.insert("\(route.gateway ?? "-") \(route.metric ?? 0)")
            }
        }
        return result
    }
}
