import Foundation
import PathModel
import PathMonitor
import Testing

/// Default routes over nexthop objects (`ip route add default nhid N`, as FRR and systemd-networkd's [NextHop]
/// write them), with the kernel's compatibility attributes and without (`nexthop_compat_mode=0`, per namespace).
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

    static func addGroupDefault(_ namespace: NetworkNamespace) throws {
        try namespace.ip("nexthop add id 1 via 192.0.2.1 dev eth0")
        try namespace.ip("nexthop add id 2 via 198.51.100.1 dev eth1")
        try namespace.ip("nexthop add id 10 group 1/2")
        try namespace.ip("route add default nhid 10")
    }

    @Test(arguments: [false, true])
    func defaultViaANexthopGroupFollowsTheKernel(compatibility: Bool) async throws {
        let scenario = try Self.start(compatibility: compatibility)
        defer { #expect(scenario.tearDown() == 0) }
        let log = scenario.client.log
        _ = try await log.nextPath { $0.unsatisfiedReason == .noDefaultRoute }
        try Self.addGroupDefault(scenario.namespace)
        let oracle = KernelRouteOracle(namespace: scenario.namespace, socketPath: scenario.daemon.socketPath)
        let kernel = try #require(try oracle.kernelInterface(.ipv4), "the kernel routes through the group")
        // With RTA_MULTIPATH alongside RTA_NH_ID (compatibility mode) both members are usable; without, the
        // kernel's answer alone makes its member usable (the model does not parse nexthop objects yet).
        let path = try await log.nextPath {
            $0.status == .satisfied && (!compatibility || $0.interfaceNames.count == 2)
        }
        #expect(path.interfaceNames.first == kernel)

        // The member the kernel uses goes: the group shrinks (silently) and the kernel uses the other.
        try scenario.namespace.ip("link set \(kernel) down")
        let other = kernel == "eth0" ? "eth1" : "eth0"
        _ = try await log.nextPath { $0.interfaceNames.first == other }
        #expect(try oracle.kernelInterface(.ipv4) == other)
    }
}
