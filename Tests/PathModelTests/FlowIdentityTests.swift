// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

/// Issue 40 in the model: a flow is its interface's index, a bound IPv6 flow is viable by either of its answers,
/// and the better path is the kernel's choice for the peer whatever interface it is.
@Suite struct FlowIdentityTests {
    let evaluator = PathEvaluator()

    func status(_ flow: Flow, _ state: KernelState) -> FlowStatus {
        let interfaces = evaluator.interfaces(in: state)
        let path = evaluator.path(from: interfaces, parameters: flow.parameters)
        return FlowEvaluator.status(
            of: flow, interfaces: interfaces, pathForParameters: path, decisions: state.decisions)
    }

    /// eth0 (2) and eth1 (3), each with an address and a default route.
    static func twoUplinks(eth1Name: String = "eth1") -> KernelState {
        let (eth0, address0, route0) = usableIPv4(makeLink(2, "eth0"), host: 2, metric: 100)
        let (eth1, address1, route1) = usableIPv4(makeLink(3, eth1Name), host: 2, metric: 50)
        return makeState([makeLoopback(), eth0, eth1], addresses: [address0, address1], routes: [route0, route1])
    }

    @Test func aRenamedInterfaceKeepsItsFlow() {
        let flow = Flow(
            interfaceName: "eth1", localAddress: ip("10.3.0.2"), remoteAddress: ip("192.0.2.80"), interfaceIndex: 3)
        var state = Self.twoUplinks(eth1Name: "wan1")
        state.apply(
            .routeDecisions([
                flow.currentRouteQuery!: .via(interfaceIndex: 3, gateway: ip("10.3.0.1")),
                flow.newConnectionRouteQuery!: .via(interfaceIndex: 3, gateway: ip("10.3.0.1")),
            ]))
        #expect(status(flow, state) == FlowStatus(isViable: true, betterPathAvailable: false))
        // Another interface is better: named as it is called now.
        state.apply(.routeDecisions([flow.newConnectionRouteQuery!: .via(interfaceIndex: 2, gateway: ip("10.2.0.1"))]))
        #expect(status(flow, state).betterInterface == "eth0")
        // Without an index (not known when it was watched), the name: no such interface now.
        var byName = flow
        byName.interfaceIndex = nil
        #expect(!status(byName, state).isViable)
    }

    @Test func aBoundIPv6FlowIsViableByEitherAnswer() throws {
        let eth2 = makeLink(4, "eth2")
        let state = makeState(
            [makeLoopback(), makeLink(2, "eth0"), eth2],
            addresses: [makeAddress(2, "2001:db8::2"), makeAddress(4, "2001:db8:2::2")],
            routes: [makeRoute(2, via: "2001:db8::1", metric: 100), makeRoute(4, via: "2001:db8:2::1", metric: 200)])
        let flow = Flow(
            interfaceName: "eth2", localAddress: ip("2001:db8:2::2"), remoteAddress: ip("2606:4700:4700::1111"),
            isBoundToInterface: true, interfaceIndex: 4)
        let queries = try #require(flow.routeQueryPair)
        let bound = try #require(queries.bound)
        var answered = state
        // With the source the kernel prefers eth0's lower metric; without it, it holds the packet to eth2.
        answered.apply(
            .routeDecisions([
                queries.current: .via(interfaceIndex: 2, gateway: ip("2001:db8::1")),
                bound: .via(interfaceIndex: 4, gateway: ip("2001:db8:2::1")),
                queries.newConnection: .via(interfaceIndex: 2, gateway: ip("2001:db8::1")),
            ]))
        #expect(
            status(flow, answered)
                == FlowStatus(
                    isViable: true, betterPathAvailable: true, betterInterface: "eth0",
                    betterInterfaceAddresses: [ip("2001:db8::2")]))
        // eth2 has no route of its own: neither answer is eth2.
        answered.apply(.routeDecisions([bound: .unroutable]))
        #expect(!status(flow, answered).isViable)
        // A source rule's table routes it by eth2: the answer with the source says so.
        answered.apply(.routeDecisions([queries.current: .via(interfaceIndex: 4, gateway: ip("2001:db8:2::1"))]))
        #expect(status(flow, answered).isViable)
    }

    @Test func aSplitTunnelIsTheBetterPathForItsSubnets() {
        // vpn0 routes 172.16.0.0/16 only: no default, so the path for the internet does not list it.
        let vpn = makeTunnel(5, "vpn0")
        var state = Self.twoUplinks()
        state = makeState(
            Array(state.links.values) + [vpn],
            addresses: Array(state.addresses) + [makeAddress(5, "10.8.0.2", prefix: 32)],
            routes: Array(state.snapshot.routes))
        let onEth1 = Flow(
            interfaceName: "eth1", localAddress: ip("10.3.0.2"), remoteAddress: ip("172.16.5.5"),
            isBoundToInterface: true, interfaceIndex: 3)
        state.apply(
            .routeDecisions([
                onEth1.currentRouteQuery!: .via(interfaceIndex: 3, gateway: ip("10.3.0.1")),
                onEth1.newConnectionRouteQuery!: .via(interfaceIndex: 5, gateway: nil),
            ]))
        #expect(!evaluator.path(in: state).availableInterfaces.contains { $0.name == "vpn0" })
        #expect(
            status(onEth1, state)
                == FlowStatus(
                    isViable: true, betterPathAvailable: true, betterInterface: "vpn0",
                    betterInterfaceAddresses: [ip("10.8.0.2")]))
        // A flow that may not use tunnels' kind ("other") is offered the path's first instead.
        var wiredOnly = onEth1
        wiredOnly.parameters = PathParameters(requiredInterfaceKind: .wired)
        state.apply(
            .routeDecisions([
                wiredOnly.currentRouteQuery!: .via(interfaceIndex: 3, gateway: ip("10.3.0.1")),
                wiredOnly.newConnectionRouteQuery!: .via(interfaceIndex: 5, gateway: nil),
            ]))
        #expect(status(wiredOnly, state).betterInterface != "vpn0")
    }
}
