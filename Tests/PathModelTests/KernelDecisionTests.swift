// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

/// The kernel's own routing decisions in the pure model: the kernel's pick leads the path, a family the kernel
/// sends nowhere is routed by no interface, tunnels cost what their carrier costs, flows follow their route.
@Suite struct KernelDecisionTests {
    let evaluator = PathEvaluator()

    /// Wired eth0 (index 2) and a WireGuard tunnel wg0 (index 3), both with IPv4 default routes.
    func wiredAndTunnel(decision: RouteDecision?, tunnelMetric: UInt32 = 0) -> KernelState {
        var snapshot = KernelSnapshot(
            links: [makeLink(2, "eth0"), makeTunnel(3, "wg0")],
            addresses: [makeAddress(2, "192.0.2.10"), makeAddress(3, "10.8.0.2", prefix: 32)],
            routes: [
                makeRoute(2, via: "192.0.2.1", metric: 100),
                makeRoute(3, via: nil, family: .ipv4, metric: tunnelMetric, table: 51820),
            ])
        if let decision { snapshot.decisions = [.internet(.ipv4): decision] }
        return KernelState(snapshot)
    }

    /// The internet is four probes per family; the outcome most of them give wins, a tie goes to the earliest
    /// probe's: one probe bent by a host route or a blackhole changes nothing, half the space (a split default's
    /// half with 1.1.1.1 in it) leads.
    @Test(
        arguments: [
            ([3, 2, 2, 2], "eth0", true),  // a host route for 1.1.1.1 into the tunnel
            ([0, 2, 2, 2], "eth0", true),  // blackhole 1.0.0.0/8
            ([3, 3, 2, 2], "wg0", true),  // 0.0.0.0/1 into the tunnel: a tie, 1.1.1.1's half leads
            ([2, 2, 3, 3], "eth0", true),
            ([0, 0, 0, 2], nil, false),  // only 208.0.0.0/4 is routed: the internet is not
            ([0, 0, 2, 2], nil, false),  // a tie between nowhere (1.1.1.1's) and eth0
        ] as [([Int32], String?, Bool)])
    func theProbesDecideByMajority(answers: [Int32], first: String?, satisfied: Bool) {
        var state = wiredAndTunnel(decision: nil)
        var decisions: [RouteQuery: RouteDecision] = [:]
        for (probe, index) in zip(RouteQuery.internetProbes(.ipv4), answers) {
            decisions[probe] = index == 0 ? .unroutable : .via(interfaceIndex: index, gateway: nil)
        }
        state.apply(.routeDecisions(decisions))
        let path = evaluator.path(in: state)
        #expect((path.status == .satisfied) == satisfied)
        if let first { #expect(path.availableInterfaces.first?.name == first) }
    }

    /// Issue 24, 5: a user's path follows the answers asked as that user (a `uidrange` rule into the tunnel);
    /// root's and a user not asked about keep the system's; a flow's questions carry its user.
    @Test func aUsersPathFollowsItsOwnProbes() throws {
        var state = wiredAndTunnel(decision: nil)
        var decisions: [RouteQuery: RouteDecision] = [:]
        for probe in RouteQuery.internetProbes(.ipv4) { decisions[probe] = .via(interfaceIndex: 2, gateway: nil) }
        for probe in RouteQuery.internetProbes(.ipv4, user: 1000) {
            decisions[probe] = .via(interfaceIndex: 3, gateway: nil)
        }
        state.apply(.routeDecisions(decisions))
        let tracker = PathTracker(state: state, evaluator: evaluator)
        func first(_ user: UInt32?) -> String? {
            evaluator.path(from: tracker.interfaces(forUser: user))
                .availableInterfaces.first?.name
        }
        #expect(first(nil) == "eth0" && first(0) == "eth0" && first(1001) == "eth0")
        #expect(first(1000) == "wg0")
        #expect(
            evaluator.path(in: state, parameters: PathParameters(routingUser: 1000)).availableInterfaces.first?.name
                == "wg0")
        var flow = Flow(
            interfaceName: "eth0", localAddress: ip("192.0.2.10"), remoteAddress: ip("198.51.100.7"),
            parameters: PathParameters(routingUser: 1000))
        #expect(flow.routeQueries.allSatisfy { $0.uid == 1000 })
        flow.parameters.routingUser = nil
        #expect(flow.routeQueries.allSatisfy { $0.uid == RouteQuery.systemUser })
    }

    @Test func withoutTheKernelsAnswerTheDocumentedOrderHolds() {
        #expect(evaluator.path(in: wiredAndTunnel(decision: nil)).availableInterfaces.map(\.name) == ["eth0", "wg0"])
    }

    @Test func theKernelsPickLeadsWhateverTheKinds() {
        let state = wiredAndTunnel(decision: .via(interfaceIndex: 3, gateway: nil))
        let path = evaluator.path(in: state)
        #expect(path.availableInterfaces.map(\.name) == ["wg0", "eth0"])
        #expect(path.availableInterfaces.map(\.isTunnel) == [true, false])
        #expect(path.gateways.isEmpty, "the kernel's route through wg0 has no gateway")
    }

    @Test func aFamilyTheKernelSendsNowhereIsUnsatisfied() {
        let path = evaluator.path(in: wiredAndTunnel(decision: .unroutable))
        #expect(path == .unsatisfied(.noDefaultRoute))
    }

    @Test func aPickThatCannotCarryThePacketLeavesTheFamilyUnsatisfied() {
        // The kernel still routes through eth0 after its carrier went (a linkdown route): packets are lost.
        var state = wiredAndTunnel(decision: .via(interfaceIndex: 2, gateway: ip("192.0.2.1")))
        state.apply(.linkChanged(makeLink(2, "eth0", flags: [.up])))
        #expect(evaluator.path(in: state).status == .unsatisfied)
    }

    @Test func theKernelsPickRoutesEvenWithoutAModelledDefaultRoute() {
        // A specific route, a rule or a nexthop object the model does not hold: the kernel's answer is enough.
        let state = KernelState(
            KernelSnapshot(
                links: [makeLink(2, "eth0")], addresses: [makeAddress(2, "192.0.2.10")],
                decisions: [.internet(.ipv4): .via(interfaceIndex: 2, gateway: ip("192.0.2.1"))]))
        let path = evaluator.path(in: state)
        #expect(path.availableInterfaces.map(\.name) == ["eth0"] && path.gateways == [ip("192.0.2.1")])
    }

    @Test func aTunnelInheritsItsCarriersCost() {
        var snapshot = tunnelOverTwoUplinks(tunnelRoutes: [makeRoute(5, via: nil, family: .ipv4)])
        // The endpoint is reached over cellular, though wired is the best interface. (Asked as root: the
        // tunnel's own packets are the kernel's.)
        let endpoint = RouteQuery(destination: ip("198.18.0.9"), uid: RouteQuery.systemUser)
        snapshot.decisions = [
            .internet(.ipv4): .via(interfaceIndex: 5, gateway: nil),
            endpoint: .via(interfaceIndex: 4, gateway: ip("203.0.113.1")),
        ]
        let interfaces = evaluator.interfaces(in: KernelState(snapshot))
        let tunnel = interfaces.first { $0.link.name == "gre1" }
        #expect(tunnel?.carrier == 4 && tunnel?.isExpensive == true && tunnel?.expensiveSource == .tunnelCarrier)
        #expect(evaluator.path(in: KernelState(snapshot)).isExpensive)
        #expect(RouteQuery.standing(for: snapshot.links).contains(endpoint))
    }

    @Test func aFlowFollowsItsOwnRoute() {
        let flow = Flow(interfaceName: "eth0", localAddress: ip("192.0.2.10"), remoteAddress: ip("10.1.2.3"))
        // No default route at all, but the kernel routes the remote through eth0 (10.0.0.0/8 via ...).
        var state = KernelState(
            KernelSnapshot(links: [makeLink(2, "eth0")], addresses: [makeAddress(2, "192.0.2.10")]))
        let interfaces = { evaluator.interfaces(in: state) }
        let path = { evaluator.path(in: state) }
        #expect(!FlowEvaluator.status(of: flow, interfaces: interfaces(), pathForParameters: path()).isViable)
        state.apply(
            .routeDecisions([
                flow.currentRouteQuery!: .via(interfaceIndex: 2, gateway: ip("192.0.2.254")),
                flow.newConnectionRouteQuery!: .via(interfaceIndex: 2, gateway: ip("192.0.2.254")),
            ]))
        #expect(
            FlowEvaluator.status(
                of: flow, interfaces: interfaces(), pathForParameters: path(), decisions: state.decisions)
                == FlowStatus(isViable: true, betterPathAvailable: false))
        // The kernel now sends the flow's packets out of another interface (a lower metric there): not viable,
        // whatever eth0's own routes say.
        state.apply(
            .routeDecisions([
                flow.currentRouteQuery!: .via(interfaceIndex: 3, gateway: ip("198.51.100.1")),
                flow.newConnectionRouteQuery!: .via(interfaceIndex: 3, gateway: ip("198.51.100.1")),
            ]))
        #expect(
            !FlowEvaluator.status(
                of: flow, interfaces: interfaces(), pathForParameters: path(), decisions: state.decisions
            ).isViable)
        state.apply(.routeDecisions([flow.currentRouteQuery!: .unroutable]))
        #expect(
            !FlowEvaluator.status(
                of: flow, interfaces: interfaces(), pathForParameters: path(), decisions: state.decisions
            ).isViable)
    }

    @Test func onlyGatewaysNeighboursAreKept() {
        var state = KernelState(
            KernelSnapshot(
                links: [makeLink(2, "eth0")], addresses: [makeAddress(2, "192.0.2.10")],
                routes: [makeRoute(2, via: "192.0.2.1")]))
        for host in 2..<200 {
            state.apply(
                .neighbourChanged(
                    Neighbour(interfaceIndex: 2, address: ip("192.0.2.\(host)"), linkLayerAddress: "02:00:00:00:00:01"))
            )
        }
        #expect(state.snapshot.neighbours.isEmpty)
        #expect(state.unresolvedGateways == [GatewayKey(interfaceIndex: 2, address: ip("192.0.2.1"))])
        let gateway = Neighbour(interfaceIndex: 2, address: ip("192.0.2.1"), linkLayerAddress: "02:00:00:00:00:aa")
        state.apply(.neighbourChanged(gateway))
        #expect(state.snapshot.neighbours == [gateway] && state.unresolvedGateways.isEmpty)
        state.apply(.routeRemoved(makeRoute(2, via: "192.0.2.1")))
        #expect(state.snapshot.neighbours.isEmpty, "released with its route")
    }
}
