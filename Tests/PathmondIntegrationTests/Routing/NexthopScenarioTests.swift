// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathMonitor
import Testing

/// Default routes over nexthop objects (`ip route add default nhid N`, as FRR and systemd-networkd's [NextHop]
/// write them), with the kernel's compatibility attributes and without (`nexthop_compat_mode=0`, per namespace):
/// pathmond resolves them through the nexthop objects either way.
@Suite(.serialized) struct NexthopScenarioTests {
    static func start(compatibility: Bool) throws -> Scenario {
        try Scenario.start { namespace in
            try runCommand(
                namespace.exec + ["sysctl", "-q", "-w", "net.ipv4.nexthop_compat_mode=\(compatibility ? 1 : 0)"])
            try namespace.addWiredUplink(routed: false)
            try namespace.addVeth("eth1", peer: "eth1-peer")
            try namespace.ip("address add 198.51.100.10/24 dev eth1")
        }
    }

    /// The kernel refuses a nexthop on a link without carrier, which a fresh veth gets 0.7 s after `up`.
    static func waitForCarrier(_ namespace: NetworkNamespace, _ names: [String]) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        for name in names {
            while try !runCommand(["ip", "-n", namespace.name, "link", "show", name]).output.contains("state UP") {
                guard ContinuousClock.now < deadline else { throw NoCarrier(name: name) }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    static func addGroupDefault(_ namespace: NetworkNamespace) async throws {
        try await waitForCarrier(namespace, ["eth0", "eth1"])
        try namespace.ip("nexthop add id 1 via 192.0.2.1 dev eth0")
        try namespace.ip("nexthop add id 2 via 198.51.100.1 dev eth1")
        try namespace.ip("nexthop add id 10 group 1/2")
        try namespace.ip("route add default nhid 10")
    }

    @Test(arguments: [false, true])
    func defaultViaANexthopGroupListsEveryMember(compatibility: Bool) async throws {
        let scenario = try Self.start(compatibility: compatibility)
        defer { #expect(scenario.tearDown() == 0) }
        let log = scenario.client.log
        _ = try await log.nextPath { $0.unsatisfiedReason == .noDefaultRoute }
        try await Self.addGroupDefault(scenario.namespace)
        let oracle = KernelRouteOracle(namespace: scenario.namespace, socketPath: scenario.daemon.socketPath)
        let kernel = try #require(try oracle.kernelInterface(.ipv4), "the kernel routes through the group")
        let other = kernel == "eth0" ? "eth1" : "eth0"
        // Both members are usable, whether or not the route carries RTA_MULTIPATH beside RTA_NH_ID; the one the
        // kernel picks for the internet comes first.
        let path = try await log.nextPath { $0.status == .satisfied && $0.interfaceNames.count == 2 }
        #expect(path.interfaceNames == [kernel, other])

        // The member the kernel uses goes down: the kernel deletes its nexthop and shrinks the group, without a
        // word; the kernel uses the other, and the downed link is no longer listed once it is back up.
        try scenario.namespace.ip("link set \(kernel) down")
        _ = try await log.nextPath { $0.interfaceNames == [other] }
        #expect(try oracle.kernelInterface(.ipv4) == other)
        try scenario.namespace.ip("link set \(kernel) up")
        try await Self.waitForCarrier(scenario.namespace, [kernel])
        // A change that moves the path, seen after the link came back: the kernel did not restore the member.
        try scenario.namespace.ip("-6 address add 2001:db8:1::10/64 dev \(other) nodad")
        try scenario.namespace.ip("-6 route add default via 2001:db8:1::1 dev \(other)")
        let after = try await log.nextPath { $0.supportsIPv6 }
        #expect(after.interfaceNames == [other])
        let group = try runCommand(["ip", "-n", scenario.namespace.name, "nexthop", "show", "id", "10"]).output
        #expect(group.contains("group \(kernel == "eth0" ? 2 : 1) "))
    }

    @Test(arguments: [false, true])
    func followsNexthopAndGroupReplacement(compatibility: Bool) async throws {
        let scenario = try Self.start(compatibility: compatibility)
        defer { #expect(scenario.tearDown() == 0) }
        let namespace = scenario.namespace
        let log = scenario.client.log
        _ = try await log.nextPath { $0.unsatisfiedReason == .noDefaultRoute }
        try await Self.addGroupDefault(namespace)
        _ = try await log.nextPath { Set($0.interfaceNames) == ["eth0", "eth1"] }

        // Nexthop 1 moves to eth1: the group now leaves by eth1 alone.
        try namespace.ip("nexthop replace id 1 via 198.51.100.2 dev eth1")
        let moved = try await log.nextPath { $0.interfaceNames == ["eth1"] }
        #expect(!moved.gateways.isEmpty)
        #expect(moved.gateways.allSatisfy { ["198.51.100.1", "198.51.100.2"].compactMap(IPAddress.init).contains($0) })

        try namespace.ip("nexthop replace id 1 via 192.0.2.1 dev eth0")
        _ = try await log.nextPath { Set($0.interfaceNames) == ["eth0", "eth1"] }

        // The group itself changes: eth0 alone, then both again.
        try namespace.ip("nexthop replace id 10 group 1")
        _ = try await log.nextPath { $0.interfaceNames == ["eth0"] }
        try namespace.ip("nexthop replace id 10 group 1/2")
        _ = try await log.nextPath { Set($0.interfaceNames) == ["eth0", "eth1"] }

        // Deleting a member shrinks the group; deleting the group takes the route with it.
        try namespace.ip("nexthop del id 2")
        _ = try await log.nextPath { $0.interfaceNames == ["eth0"] }
        try namespace.ip("nexthop del id 10")
        _ = try await log.nextPath { $0.unsatisfiedReason == .noDefaultRoute }
    }
}

/// A link did not get carrier in time.
struct NoCarrier: Error, CustomStringConvertible {
    var name: String
    var description: String { "\(name) did not get carrier within 5 s" }
}
