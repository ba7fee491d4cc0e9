// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PathModel

/// Routes over nexthop objects resolve through the state's nexthops, and follow what the kernel does to them
/// without a word (measured on Linux 6.18: link down or carrier loss deletes the link's nexthops, shrinks their
/// groups, deletes a group left empty and the routes that named any of them).
@Suite struct NexthopStateTests {
    let eth0 = makeLink(2, "eth0")
    let eth1 = makeLink(3, "eth1")
    var addresses: [InterfaceAddress] { [makeAddress(2, "192.0.2.10"), makeAddress(3, "198.51.100.10")] }
    let first = Nexthop(id: 1, interfaceIndex: 2, gateway: ip("192.0.2.1"))
    let second = Nexthop(id: 2, interfaceIndex: 3, gateway: ip("198.51.100.1"))
    let group = Nexthop(id: 10, group: [1, 2])
    let overGroup = DefaultRoute(family: .ipv4, interfaceIndex: 0, nexthopID: 10)

    func groupState() -> KernelState {
        KernelState(
            KernelSnapshot(
                links: [eth0, eth1], addresses: addresses, routes: [overGroup], nexthops: [first, second, group]))
    }

    func interfaces(_ state: KernelState) -> Set<Int32> { Set(state.routes.map(\.interfaceIndex)) }

    @Test func aRouteOverAGroupResolvesToEachMember() {
        let state = groupState()
        #expect(interfaces(state) == [2, 3])
        #expect(state.routes(through: 3).first?.gateway == ip("198.51.100.1"))
        #expect(state.routes.allSatisfy { $0.isMultipath && $0.nexthopID == 10 })
        #expect(state.unresolvedGateways.count == 2)
        // The snapshot gives the route back as the kernel announced it, once.
        #expect(state.snapshot.routes == [overGroup])
        #expect(KernelState(state.snapshot) == state)
    }

    @Test func eventsInAnyOrderResolveOnceBothArrive() {
        var state = makeState([eth0, eth1], addresses: addresses)
        state.apply(.routeAdded(overGroup, replacing: false))
        #expect(state.routes.isEmpty, "a route naming a nexthop the state does not know carries nothing")
        state.apply([.nexthopChanged(first), .nexthopChanged(second), .nexthopChanged(group)])
        #expect(interfaces(state) == [2, 3])
        state.apply(.routeRemoved(overGroup))
        #expect(state.routes.isEmpty)
    }

    @Test func aReplacedNexthopMovesItsRoutes() {
        var state = groupState()
        state.apply(.nexthopChanged(Nexthop(id: 1, interfaceIndex: 3, gateway: ip("198.51.100.2"))))
        #expect(interfaces(state) == [3])
        #expect(Set(state.routes.compactMap(\.gateway)) == [ip("198.51.100.1"), ip("198.51.100.2")])
    }

    @Test func aReplacedGroupChangesItsMembers() {
        var state = groupState()
        state.apply(.nexthopChanged(Nexthop(id: 10, group: [2])))
        #expect(interfaces(state) == [3])
        #expect(state.routes.allSatisfy { !$0.isMultipath })
    }

    @Test(arguments: [LinkFlags([]), LinkFlags([.up])])
    func aLinkDownOrWithoutCarrierTakesItsNexthopsOutOfGroups(flags: LinkFlags) {
        var state = groupState()
        let direct = DefaultRoute(family: .ipv4, prefixLength: 1, interfaceIndex: 0, nexthopID: 1)
        state.apply(.routeAdded(direct, replacing: false))
        state.apply(.linkChanged(makeLink(2, "eth0", flags: flags)))
        #expect(state.nexthops.map(\.id) == [2, 10])
        #expect(state.nexthops.last?.group == [2])
        // The group's route stays, over what is left; the route over the flushed nexthop is gone for good.
        #expect(interfaces(state) == [3])
        state.apply(.linkChanged(eth0))
        state.apply(.nexthopChanged(first))
        #expect(interfaces(state) == [3], "the kernel neither restores group members nor deleted routes")
    }

    @Test func theLastMemberGoingDeletesTheGroupAndItsRoutes() {
        var state = groupState()
        state.apply(.linkRemoved(index: 2))
        state.apply(.nexthopRemoved(id: 2))
        #expect(state.nexthops.isEmpty)
        #expect(state.routes.isEmpty)
        state.apply([.nexthopChanged(second), .nexthopChanged(Nexthop(id: 10, group: [2]))])
        #expect(state.routes.isEmpty, "the route went with its group")
    }

    @Test func losingTheLastIPv4AddressKeepsNexthopRoutes() {
        var state = groupState()
        state.apply(.addressRemoved(makeAddress(2, "192.0.2.10")))
        #expect(interfaces(state) == [2, 3])
    }

    @Test func aBlackholeOrEmptyNexthopCarriesNothing() {
        var state = makeState([eth0], addresses: addresses)
        state.apply(.nexthopChanged(Nexthop(id: 5, isBlackhole: true)))
        state.apply(.routeAdded(DefaultRoute(family: .ipv4, interfaceIndex: 0, nexthopID: 5), replacing: false))
        #expect(state.routes.isEmpty)
    }

    @Test func replacingTheSlotDropsARouteOverANexthop() {
        var state = groupState()
        state.apply(.routeAdded(makeRoute(2, via: "192.0.2.254"), replacing: true))
        #expect(state.routes == [makeRoute(2, via: "192.0.2.254")])
        state.apply(.routeAdded(overGroup, replacing: true))
        #expect(interfaces(state) == [2, 3])
        #expect(state.routes.allSatisfy { $0.nexthopID == 10 })
    }

    @Test func theEvaluatorListsEveryMemberAsUsable() {
        let path = PathEvaluator().path(in: groupState())
        #expect(path.status == .satisfied)
        #expect(Set(path.availableInterfaces.map(\.name)) == ["eth0", "eth1"])
    }
}
