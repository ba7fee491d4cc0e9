// SPDX-License-Identifier: Apache-2.0
import Foundation
import NetlinkTestSupport
import PathModel
import Testing

@testable import Netlink

/// Routes over nexthop objects as the watcher reports them, with net.ipv4.nexthop_compat_mode 0 and 1: resolved
/// through the nexthops it dumps and follows, and still equal to a fresh dump after the kernel's silent flush of a
/// link's nexthops.
@Suite(.serialized) struct KernelWatcherNexthopTests {
    /// The kernel refuses a nexthop on a link without carrier, which a fresh veth gets about 0.7 s after `up`.
    static func waitForCarrier(_ namespace: TestNetworkNamespace, _ link: String) async throws {
        for _ in 0..<250 where try !namespace.ip("link show \(link)").output.contains("state UP") {
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test(arguments: [0, 1])
    func aGroupDefaultResolvesAndFollowsTheSilentFlush(compatibility: Int) async throws {
        try await withTestNamespace { namespace in
            try runCommand(namespace.exec + ["sysctl", "-q", "-w", "net.ipv4.nexthop_compat_mode=\(compatibility)"])
            try namespace.ip("address add 10.1.0.2/24 dev va")
            try namespace.ip("address add 10.2.0.2/24 dev vb")
            try await Self.waitForCarrier(namespace, "va")
            try await Self.waitForCarrier(namespace, "vb")
            let va = try namespace.index(of: "va")
            let vb = try namespace.index(of: "vb")
            try namespace.ip("nexthop add id 1 via 10.1.0.1 dev va")
            var stepper = try await BatchStepper.afterFirstDump(of: namespace)
            defer { stepper.stopWatching() }
            #expect(stepper.state.nexthops == [Nexthop(id: 1, interfaceIndex: va, gateway: IPAddress("10.1.0.1"))])

            try namespace.ip("nexthop add id 2 via 10.2.0.1 dev vb")
            try namespace.ip("nexthop add id 10 group 1/2")
            try namespace.ip("route add default nhid 10")
            let both: Set = [
                DefaultRoute(
                    family: .ipv4, interfaceIndex: va, gateway: IPAddress("10.1.0.1"), isMultipath: true, nexthopID: 10),
                DefaultRoute(
                    family: .ipv4, interfaceIndex: vb, gateway: IPAddress("10.2.0.1"), isMultipath: true, nexthopID: 10),
            ]
            try await stepper.waitUntil { $0.routes == both }
            try await stepper.waitUntilConverged(with: namespace)

            // va goes down, and vb (its veth peer) loses carrier: the kernel deletes both nexthops, then the group
            // left empty and the route over it, and says nothing of any of them.
            try namespace.ip("link set va down")
            try await stepper.waitUntil { $0.routes.isEmpty && $0.nexthops.isEmpty }
            try await stepper.waitUntilConverged(with: namespace)
        }
    }
}
