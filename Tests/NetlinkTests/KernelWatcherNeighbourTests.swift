// SPDX-License-Identifier: Apache-2.0
import NetlinkTestSupport
import PathModel
import Testing

@testable import Netlink

/// The neighbour table, as far as paths need it (the entries of routes' gateways): static entries added, changed and
/// deleted, an ARP resolution across a veth pair, and what the watcher leaves out (proxy entries, the kernel's silent
/// NOARP entries, every entry no route goes through).
@Suite struct KernelWatcherNeighbourTests {
    @Test func staticEntriesAreAddedChangedAndRemoved() async throws {
        try await withTestNamespace { namespace in
            let va = try namespace.index(of: "va")
            var stepper = try await BatchStepper.afterFirstDump(of: namespace)
            defer { stepper.stopWatching() }
            let v4 = IPAddress("192.0.2.1")!
            let v6 = IPAddress("2001:db8::1")!
            // Gateways, so their entries matter (the watcher has the kernel start resolving them: `replace`).
            try namespace.ip("address add 192.0.2.10/24 dev va")
            try namespace.ip("-6 address add 2001:db8::10/64 dev va nodad")
            try namespace.ip("route add default via 192.0.2.1 dev va")
            try namespace.ip("-6 route add default via 2001:db8::1 dev va")

            try namespace.ip("neigh replace 192.0.2.1 lladdr 02:00:00:00:00:01 dev va nud permanent")
            try namespace.ip("-6 neigh replace 2001:db8::1 lladdr 02:00:00:00:00:AA dev va")
            try await stepper.waitUntil {
                $0.neighbour(v4, on: va)?.linkLayerAddress == "02:00:00:00:00:01"
                    && $0.neighbour(v6, on: va)?.linkLayerAddress == "02:00:00:00:00:aa"
            }
            #expect(Set((try await freshSnapshot(of: namespace)).neighbours) == Set(stepper.state.snapshot.neighbours))

            try namespace.ip("neigh change 192.0.2.1 lladdr 02:00:00:00:00:02 dev va nud permanent")
            try await stepper.waitUntil { $0.neighbour(v4, on: va)?.linkLayerAddress == "02:00:00:00:00:02" }

            // A gateway's entry outlives its deletion while the route stays (the network has not changed); it is
            // released with the route.
            try namespace.ip("neigh del 192.0.2.1 dev va")
            try namespace.ip("-6 neigh del 2001:db8::1 dev va")
            try namespace.ip("route del default dev va")
            try namespace.ip("-6 route del default dev va")
            try await stepper.waitUntil { $0.snapshot.neighbours.isEmpty }
            try await stepper.waitUntilConverged(with: namespace)
        }
    }

    /// What the model does not keep goes no further than the route follower: an entry no route goes through, a
    /// gateway's entry moving between NUD states (REACHABLE, STALE), a gateway's entry failing (kept while its
    /// route stays). Its link-layer address changing is delivered.
    @Test func entriesThatChangeNothingAreNotDelivered() async throws {
        try await withTestNamespace { namespace in
            let va = try namespace.index(of: "va")
            var stepper = try await BatchStepper.afterFirstDump(of: namespace)
            defer { stepper.stopWatching() }
            let address = IPAddress("192.0.2.5")!
            let isNeighbours = { (batch: KernelBatch) in
                batch.events.contains {
                    switch $0 {
                    case .neighbourChanged, .neighbourRemoved: true
                    default: false
                    }
                }
            }

            // No route goes through it; the address after it is delivered, and whatever came before it.
            try namespace.ip("neigh replace 192.0.2.5 lladdr 02:00:00:00:00:05 dev va nud stale")
            try namespace.ip("address add 192.0.2.10/24 dev va")
            try await stepper.waitUntil { $0.addresses(of: va).contains { $0.address == IPAddress("192.0.2.10")! } }
            #expect(!stepper.batches.contains(where: isNeighbours))

            try namespace.ip("route add default via 192.0.2.5 dev va")
            try await stepper.waitUntil { $0.neighbour(address, on: va)?.linkLayerAddress == "02:00:00:00:00:05" }
            let kept = stepper.batches.count
            try namespace.ip("neigh replace 192.0.2.5 lladdr 02:00:00:00:00:05 dev va nud reachable")
            try namespace.ip("neigh replace 192.0.2.5 dev va nud failed")
            try namespace.ip("neigh replace 192.0.2.5 lladdr 02:00:00:00:00:06 dev va nud stale")
            try await stepper.waitUntil { $0.neighbour(address, on: va)?.linkLayerAddress == "02:00:00:00:00:06" }
            let delivered = stepper.batches[kept...].flatMap(\.events).filter {
                switch $0 {
                case .neighbourChanged, .neighbourRemoved: true
                default: false
                }
            }
            #expect(
                delivered == [
                    .neighbourChanged(
                        Neighbour(interfaceIndex: va, address: address, linkLayerAddress: "02:00:00:00:00:06"))
                ])
            try namespace.ip("route del default dev va")
            try await stepper.waitUntil { $0.neighbour(address, on: va) == nil }
            try await stepper.waitUntilConverged(with: namespace)
        }
    }

    @Test func proxyAndSilentNoARPEntriesAreLeftOut() async throws {
        try await withTestNamespace { namespace in
            try namespace.ip("link set lo up")
            try namespace.ip("neigh add proxy 192.0.2.9 dev va")
            // Traffic to ::1 and multicast makes the kernel create NOARP entries without announcing them.
            try runCommand(
                namespace.exec + ["bash", "-c", "echo x > /dev/udp/::1/9; echo x > /dev/udp/224.0.0.251/5353 || true"])
            try namespace.ip("neigh add 192.0.2.1 lladdr 02:00:00:00:00:01 dev va nud permanent")
            try namespace.ip("route add default via 192.0.2.1 dev va onlink")
            let everything = try namespace.ip("neigh show nud all").output
            #expect(everything.contains("NOARP"), "the kernel made no NOARP entries: \(everything)")

            let snapshot = try await freshSnapshot(of: namespace)
            #expect(snapshot.neighbours.map(\.address) == [IPAddress("192.0.2.1")!])
        }
    }

    @Test func anARPResolutionIsReportedAndInTheSnapshot() async throws {
        try await withTestNamespace { namespace in
            try namespace.ip("link set vb netns \(namespace.far)")
            try namespace.ip("address add 10.5.0.1/24 dev va")
            try namespace.farIP("address add 10.5.0.2/24 dev vb")
            try namespace.farIP("link set vb up")
            let va = try namespace.index(of: "va")
            let peerMAC = try namespace.hardwareAddress(of: "vb", far: true)
            try namespace.ip("route add default via 10.5.0.2 dev va")
            var stepper = try await BatchStepper.afterFirstDump(of: namespace)
            defer { stepper.stopWatching() }

            // One UDP datagram to the peer makes the kernel resolve it over ARP (no ping on these machines).
            try runCommand(namespace.exec + ["bash", "-c", "echo x > /dev/udp/10.5.0.2/9"])
            let expected = Neighbour(interfaceIndex: va, address: IPAddress("10.5.0.2")!, linkLayerAddress: peerMAC)
            try await stepper.waitUntil { $0.neighbour(expected.address, on: va) == expected }
            #expect((try await freshSnapshot(of: namespace)).neighbours.contains(expected))

            // Administrative down flushes the link's neighbours; the watcher must follow (announced, unlike routes).
            try namespace.ip("link set va down")
            try await stepper.waitUntil { $0.neighbour(expected.address, on: va) == nil }
            try await stepper.waitUntilConverged(with: namespace)
        }
    }
}
