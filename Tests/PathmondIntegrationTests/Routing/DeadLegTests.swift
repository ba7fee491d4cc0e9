// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathMonitor
import Testing

/// Issue 40, 3: an IPv6 multipath default whose leg lost carrier, with `ignore_routes_with_linkdown` off: the
/// kernel keeps hashing probes onto the dead leg until its router's entry fails, then sends everything by the
/// live one.
@Suite(.serialized) struct DeadLegTests {
    /// The documented probes split two and two over a multipath default at metric 200 (the first on the live leg
    /// eth0, as the split had it), beside a plain default via eth0 at 1024. Then eth1 loses carrier and a
    /// datagram sent into it makes its router's entry INCOMPLETE, then FAILED (after about 3 s). By the tie rule
    /// IPv6 is satisfied via eth0 throughout, as `ip route get` for the documented probes says; pathmond agrees
    /// at every sample for 6 s. pathmond's first probe was a byte short (2606:4700:4700::11), which this kernel
    /// hashes onto the dead leg: it said "unsatisfied: no default route" until the entry failed.
    @Test func aLegWithoutCarrierLeavesIPv6SatisfiedByTheOther() async throws {
        var split: [String] = []
        let scenario = try Scenario.start { namespace in
            try runCommand(
                namespace.exec + ["sysctl", "-q", "-w", "net.ipv6.conf.all.ignore_routes_with_linkdown=0"])
            try KernelMindTests.twoIPv6Uplinks(namespace)
            // The weights that split the probes [eth0, eth1, eth1, eth0] or the like: two each, eth0's first.
            search: for first in [1, 0] {
                for dying in 1...6 {
                    for live in 1...6 {
                        let legs = [
                            "nexthop via 2001:db8::1 dev eth0 weight \(live)",
                            "nexthop via 2001:db8:1::1 dev eth1 weight \(dying)",
                        ]
                        try namespace.ip(
                            "-6 route replace default metric 200 \(legs[first]) \(legs[1 - first])")
                        split = try KernelRouteOracle.destinations(.ipv6).map {
                            try KernelMindTests.kernelDevice(namespace, $0) ?? "-"
                        }
                        if split.first == "eth0" && split.filter({ $0 == "eth1" }).count == 2 { break search }
                    }
                }
            }
            try namespace.ip("-6 route add default via 2001:db8::1 dev eth0 metric 1024")
        }
        defer { #expect(scenario.tearDown() == 0) }
        let namespace = scenario.namespace
        try #require(split.first == "eth0" && split.filter { $0 == "eth1" }.count == 2, "a two-two split: \(split)")
        print("the documented probes hash onto \(split)")
        let oracle = KernelRouteOracle(namespace: namespace, socketPath: scenario.daemon.socketPath)
        try await KernelMindTests.agrees(oracle, since: .now, bound: .seconds(3), "both legs up")
        #expect(try oracle.kernelInterface(.ipv6) == "eth0")

        try namespace.farIP("link set eth1-peer down")
        let sockets = try RealSockets(
            namespace, [.init(device: "eth1", local: "2001:db8:1::2", remote: "2606:4700:4700::1111")])
        defer { sockets.release() }
        // Real traffic into the dead leg, as an app's would be: it waits for the router's entry, which fails.
        _ = try sockets.send(0)
        try await KernelMindTests.staysInAgreement(oracle, for: .seconds(6), "a multipath leg without carrier")
        #expect(try oracle.kernelInterface(.ipv6) == "eth0")
        let entry = try namespace.ip("-6 neigh show 2001:db8:1::1 dev eth1").output
        print("the dead leg's router: \(entry)")
    }
}
