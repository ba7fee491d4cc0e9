// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PathModel

@Suite struct KernelStateTests {
    let eth = makeLink(2, "eth0")
    let wlan = makeWifi(3)
    var routes: [DefaultRoute] {
        [
            makeRoute(2, via: "192.168.1.1", metric: 100), makeRoute(2, via: "fe80::1", metric: 100),
            makeRoute(2, via: nil, family: .ipv4, metric: 100, prefixLength: 1, highByte: 128),
            makeRoute(3, via: "10.0.0.1", metric: 600), makeRoute(3, via: "fe80::2", metric: 600),
        ]
    }
    var addresses: [InterfaceAddress] {
        [makeAddress(2, "192.168.1.20"), makeAddress(2, "2001:db8::20"), makeAddress(3, "10.0.0.5")]
    }

    @Test func adminDownDropsOnlyThatLinksIPv4Routes() {
        var state = makeState([eth, wlan], addresses: addresses, routes: routes)
        state.apply(.linkChanged(makeLink(2, "eth0", flags: [])))
        #expect(state.routes == Set(routes.filter { $0.interfaceIndex != 2 || $0.family == .ipv6 }))
        #expect(Set(state.addresses) == Set(addresses))
        #expect(state.links[2]?.flags == [])
    }

    @Test func carrierLossKeepsRoutes() {
        var state = makeState([eth, wlan], addresses: addresses, routes: routes)
        state.apply(.linkChanged(makeLink(2, "eth0", flags: [.up])))
        #expect(state.routes == Set(routes))
    }

    @Test func aChangeWhileUpKeepsRoutes() {
        var state = makeState([eth, wlan], addresses: addresses, routes: routes)
        state.apply(.linkChanged(makeLink(2, "lan0")))
        #expect(state.routes == Set(routes))
        #expect(state.links[2]?.name == "lan0")
    }

    @Test func routesAddedWhileDownSurviveAnotherDownMessage() {
        // Only the transition up → down flushes; a repeated "down" must not drop routes added since.
        var state = makeState([makeLink(2, "eth0", flags: [])])
        let route = makeRoute(2, via: "192.168.1.1")
        state.apply([.routeAdded(route, replacing: false), .linkChanged(makeLink(2, "eth0", flags: []))])
        #expect(state.routes == [route])
    }

    @Test func removalDropsTheLinksAddressesAndRoutes() {
        var state = makeState([eth, wlan], addresses: addresses, routes: routes)
        state.apply(.linkRemoved(index: 2))
        #expect(state.links.keys.sorted() == [3])
        #expect(Set(state.addresses) == Set(addresses.filter { $0.interfaceIndex == 3 }))
        #expect(state.routes == Set(routes.filter { $0.interfaceIndex == 3 }))
    }

    @Test func anAddressIsKeyedByInterfaceAddressAndPrefix() {
        var state = makeState([eth])
        state.apply(.addressAdded(makeAddress(2, "2001:db8::20", tentative: true)))
        state.apply(.addressAdded(makeAddress(2, "2001:db8::20")))  // DAD passed: same key, new flags
        state.apply(.addressAdded(makeAddress(2, "2001:db8::20", prefix: 128)))
        #expect(state.addresses(of: 2).count == 2)
        #expect(state.addresses(of: 2).allSatisfy { !$0.isTentative })
        // RTM_DELADDR may carry other flags than the RTM_NEWADDR did.
        state.apply(.addressRemoved(makeAddress(2, "2001:db8::20", scope: .link, tentative: true)))
        #expect(state.addresses(of: 2) == [makeAddress(2, "2001:db8::20", prefix: 128)])
    }

    @Test func replaceTakesTheIPv4SlotOfTableDestinationAndMetric() {
        let old = makeRoute(2, via: "192.168.1.1", metric: 100)
        var state = makeState(
            [eth, wlan],
            routes: [
                old, makeRoute(3, via: "10.0.0.1", metric: 600),
                makeRoute(2, via: "192.168.1.1", metric: 100, table: 100),
                makeRoute(2, via: nil, family: .ipv4, metric: 100, prefixLength: 1, highByte: 0),
            ])
        let new = makeRoute(3, via: "10.0.0.1", metric: 100)
        state.apply(.routeAdded(new, replacing: true))
        #expect(!state.routes.contains(old))
        #expect(state.routes.count == 4)
        #expect(state.routes.contains(new))
    }

    @Test func addWithoutReplaceAppends() {
        var state = makeState([eth, wlan], routes: [makeRoute(2, via: "192.168.1.1", metric: 100)])
        state.apply(.routeAdded(makeRoute(3, via: "10.0.0.1", metric: 100), replacing: false))
        #expect(state.routes.count == 2)
    }

    // NLM_F_REPLACE replaces IPv6 routes too.
    // Measured here (Linux 6.18, veth in `unshare -n`): with `default via 2001:db8:1::1 dev d0 metric 1024`
    // installed, `ip -6 route replace default via 2001:db8:2::1 dev d1 metric 1024` leaves only the d1 route, and
    // `ip monitor route` shows one RTM_NEWROUTE and no RTM_DELROUTE for d0 (fib6_add_rt2node replaces the route of
    // the same table, destination and metric). A model that only handled IPv4 kept the d0 route forever.
    @Test func replaceTakesTheIPv6SlotToo() {
        let old = makeRoute(2, via: "2001:db8:1::1", metric: 1024)
        var state = makeState([eth, wlan], routes: [old])
        let new = makeRoute(3, via: "2001:db8:2::1", metric: 1024)
        state.apply(.routeAdded(new, replacing: true))
        #expect(state.routes == [new])
    }

    @Test func removingAnUnknownRouteOrAddressChangesNothing() {
        let before = makeState([eth], addresses: addresses, routes: routes)
        var state = before
        state.apply([
            .routeRemoved(makeRoute(2, via: "192.168.1.254")), .addressRemoved(makeAddress(2, "192.168.9.9")),
            .linkRemoved(index: 42),
        ])
        #expect(state == before)
    }

    @Test func aSnapshotReplacesEverything() {
        var state = makeState([eth, wlan], addresses: addresses, routes: routes)
        let snapshot = KernelSnapshot(
            links: [makeModem(4)], addresses: [makeAddress(4, "100.64.0.2")], routes: [makeRoute(4, via: nil)])
        state.apply(.snapshot(snapshot))
        #expect(state == KernelState(snapshot))
        #expect(state.snapshot == snapshot)
    }

    @Test func theSnapshotRoundTripsAndIsSorted() {
        let state = makeState([wlan, eth], addresses: addresses.reversed(), routes: routes.reversed())
        #expect(KernelState(state.snapshot) == state)
        #expect(state.snapshot.links.map(\.index) == [2, 3])
        #expect(state.snapshot.routes == routes.sorted(by: DefaultRoute.displayOrder))
        #expect(state.snapshot.addresses.map(\.interfaceIndex) == [2, 2, 3])
    }

    @Test func aSnapshotWithRepeatedEntriesKeepsTheLast() {
        let state = makeState([eth, makeLink(2, "renamed")])
        #expect(state.links[2]?.name == "renamed")
    }
}

/// Hints derived from interfaces (leases, SIMs, NetworkManager's devices) are refreshed only after events that
/// may change the interfaces themselves; a route storm must not refresh them, a link or address must.
@Test func onlyLinkAndAddressEventsChangeInterfaces() {
    let link = Link(index: 2, name: "eth0", flags: [.up, .running], linkKind: "veth")
    let address = InterfaceAddress(interfaceIndex: 2, address: IPAddress("192.0.2.2")!, prefixLength: 24)
    let route = DefaultRoute(family: .ipv4, interfaceIndex: 2, gateway: nil)
    #expect(KernelEvent.linkChanged(link).changesInterfaces)
    #expect(KernelEvent.linkRemoved(index: 2).changesInterfaces)
    #expect(KernelEvent.addressAdded(address).changesInterfaces)
    #expect(KernelEvent.addressRemoved(address).changesInterfaces)
    #expect(KernelEvent.snapshot(KernelSnapshot()).changesInterfaces)
    #expect(!KernelEvent.routeAdded(route, replacing: false).changesInterfaces)
    #expect(!KernelEvent.routeRemoved(route).changesInterfaces)
    #expect(!KernelEvent.rulesChanged.changesInterfaces)
    #expect(!KernelEvent.routeDecisions([:]).changesInterfaces)
}
