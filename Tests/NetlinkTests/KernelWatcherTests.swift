import Locking
// SPDX-License-Identifier: Apache-2.0
import NetlinkTestSupport
import PathModel
import Testing

@testable import Netlink

/// The watcher against the real kernel, in a namespace of its own: the first dump, then notifications.
@Suite struct KernelWatcherTests {
    @Test func initialSnapshotShowsLinksAddressesAndDefaultRoutes() async throws {
        try await withTestNamespace { namespace in
            try namespace.ip("address add 10.1.0.2/24 dev va")
            try namespace.ip("route add default via 10.1.0.1 dev va metric 100")
            let va = try namespace.index(of: "va")
            let asked = Locked<[String]>([])
            let watcher = try KernelWatcher(namespacePath: namespace.path) { index, name in
                asked.withLock { $0.append(name) }
                return DeviceFacts(driver: "driver-of-\(name)-\(index)")
            }
            defer { watcher.stop() }
            var stepper = BatchStepper(watcher.batches())
            let first = try await stepper.next()

            #expect(first.resync == .initial)
            #expect(first.events.count == 1)
            let state = stepper.state
            #expect(Set(state.links.values.map(\.name)) == ["lo", "va", "vb"])
            let link = try #require(state.links[va])
            #expect(link.name == "va")
            #expect(link.linkKind == "veth")
            #expect(link.hardwareType == HardwareType.ethernet)
            #expect(link.flags.contains(.up))
            #expect(link.device == DeviceFacts(driver: "driver-of-va-\(va)"))
            let mac = try namespace.ip("-o link show dev va").output
            #expect(mac.contains("link/ether \(try #require(link.hardwareAddress)) "))
            #expect(state.link(named: "lo")?.hardwareType == HardwareType.loopback)
            #expect(state.link(named: "lo")?.flags.contains(.loopback) == true)
            #expect(asked.withLock { $0.sorted() } == ["lo", "va", "vb"])

            let address = InterfaceAddress(interfaceIndex: va, address: IPAddress("10.1.0.2")!, prefixLength: 24)
            #expect(state.addresses(of: va).contains(address))
            #expect(
                state.routes == [
                    DefaultRoute(family: .ipv4, metric: 100, interfaceIndex: va, gateway: IPAddress("10.1.0.1"))
                ])
        }
    }

    @Test func addressesAndDefaultRoutesArriveAsEvents() async throws {
        try await withTestNamespace { namespace in
            let va = try namespace.index(of: "va")
            let watcher = try KernelWatcher(namespacePath: namespace.path)
            defer { watcher.stop() }
            var stepper = BatchStepper(watcher.batches())
            try await stepper.next { $0.resync == .initial }

            try namespace.ip("address add 10.1.0.2/24 dev va")
            try namespace.ip("route add default via 10.1.0.1 dev va")
            try namespace.ip("-6 address add 2001:db8::2/64 dev va nodad")
            try namespace.ip("-6 route add default via fe80::1 dev va metric 7")
            let route4 = DefaultRoute(family: .ipv4, interfaceIndex: va, gateway: IPAddress("10.1.0.1"))
            let route6 = DefaultRoute(family: .ipv6, metric: 7, interfaceIndex: va, gateway: IPAddress("fe80::1"))
            let address4 = InterfaceAddress(interfaceIndex: va, address: IPAddress("10.1.0.2")!, prefixLength: 24)
            let address6 = InterfaceAddress(interfaceIndex: va, address: IPAddress("2001:db8::2")!, prefixLength: 64)
            // An IPv6 address is announced from the kernel's DAD work, even with nodad: it may come after the route.
            try await stepper.waitUntil {
                $0.routes.contains(route4) && $0.routes.contains(route6) && $0.addresses(of: va).contains(address6)
            }

            #expect(stepper.state.addresses(of: va).contains(address4))
            #expect(stepper.state.addresses(of: va).contains(address6))
            let events = stepper.batches.dropFirst().flatMap(\.events)
            #expect(stepper.batches.dropFirst().allSatisfy { $0.resync == nil })
            #expect(events.contains(.routeAdded(route4, replacing: false)))
            #expect(events.contains(.addressAdded(address4)))

            try namespace.ip("address del 10.1.0.2/24 dev va")
            try await stepper.waitUntil { !$0.addresses(of: va).contains(address4) }
            #expect(stepper.batches.last?.events.contains(.addressRemoved(address4)) == true)
        }
    }

    @Test func linkDownReportsTheLinkAndTheStateDropsIPv4Routes() async throws {
        try await withTestNamespace { namespace in
            try namespace.ip("address add 10.1.0.2/24 dev va")
            try namespace.ip("route add default via 10.1.0.1 dev va")
            let va = try namespace.index(of: "va")
            var stepper = try await BatchStepper.afterFirstDump(of: namespace)
            defer { stepper.stopWatching() }
            #expect(stepper.state.routes(through: va).count == 1)

            try namespace.ip("link set va down")
            try await stepper.waitUntil { $0.links[va]?.flags.contains(.up) == false }
            // The kernel flushed the route without a word (KERNEL-NOTES); the model mirrors it.
            #expect(stepper.state.routes(through: va).isEmpty)
            // The peer loses its carrier through linkwatch, up to a second later; then all has settled.
            let vb = try namespace.index(of: "vb")
            try await stepper.waitUntil { $0.links[vb]?.flags.contains(.lowerUp) == false }
            try await stepper.waitUntilConverged(with: namespace)
        }
    }

    @Test func removedLinksAreReported() async throws {
        try await withTestNamespace { namespace in
            try namespace.ip("link add name vc type veth peer name vd")
            let vc = try namespace.index(of: "vc")
            let vd = try namespace.index(of: "vd")
            var stepper = try await BatchStepper.afterFirstDump(of: namespace)
            defer { stepper.stopWatching() }
            #expect(stepper.state.links[vc]?.name == "vc")

            try namespace.ip("link del vc")
            try await stepper.waitUntil { $0.links[vc] == nil && $0.links[vd] == nil }
            let events = stepper.batches.flatMap(\.events)
            #expect(events.contains(.linkRemoved(index: vc)))
            #expect(events.contains(.linkRemoved(index: vd)))
        }
    }

    @Test func renamedLinksAskForDeviceFactsAgain() async throws {
        try await withTestNamespace { namespace in
            let vb = try namespace.index(of: "vb")
            let asked = Locked<[String]>([])
            let watcher = try KernelWatcher(namespacePath: namespace.path) { _, name in
                asked.withLock { $0.append(name) }
                return DeviceFacts(deviceType: name)
            }
            defer { watcher.stop() }
            var stepper = BatchStepper(watcher.batches())
            try await stepper.next()
            try namespace.ip("link set vb down")
            try namespace.ip("link set vb name renamed")
            try await stepper.waitUntil { $0.links[vb]?.name == "renamed" }
            #expect(stepper.state.links[vb]?.device.deviceType == "renamed")
            // Flag changes reuse the cached facts: each name was looked at once.
            #expect(asked.withLock { $0.filter { $0 == "vb" }.count } == 1)
            #expect(asked.withLock { $0.filter { $0 == "renamed" }.count } == 1)
        }
    }

    @Test func peerAndTentativeAddresses() async throws {
        try await withTestNamespace { namespace in
            let va = try namespace.index(of: "va")
            var stepper = try await BatchStepper.afterFirstDump(of: namespace)
            defer { stepper.stopWatching() }

            // A point-to-point address: IFA_ADDRESS is the peer, IFA_LOCAL ours.
            try namespace.ip("address add 10.5.0.1 peer 10.5.0.2/32 dev va")
            let local = InterfaceAddress(interfaceIndex: va, address: IPAddress("10.5.0.1")!, prefixLength: 32)
            try await stepper.waitUntil { $0.addresses(of: va).contains(local) }

            // With duplicate address detection the address starts tentative, then becomes usable.
            try namespace.ip("-6 address add 2001:db8::5/64 dev va")
            let ip = IPAddress("2001:db8::5")!
            try await stepper.waitUntil { $0.addresses(of: va).contains { $0.address == ip } }
            #expect(stepper.state.addresses(of: va).first { $0.address == ip }?.isTentative == true)
            try await stepper.waitUntil { $0.addresses(of: va).contains { $0.address == ip && !$0.isTentative } }
        }
    }

    @Test func aNamespaceThatDoesNotExistIsAnError() {
        #expect(throws: NetlinkError.objectNotFound) {
            try KernelWatcher(namespacePath: "/var/run/netns/pmnl-does-not-exist")
        }
    }
}
