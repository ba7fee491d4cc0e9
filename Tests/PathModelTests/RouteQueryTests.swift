// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

/// A query is hashed once, when it is made; as a table's key it must still be told apart by every field.
@Suite struct RouteQueryTests {
    static let base = RouteQuery(destination: ip("198.51.100.7"), source: ip("192.0.2.10"), mark: 7, uid: 1000)

    /// The base query with one field changed: each must be a key of its own.
    static let variants = [
        RouteQuery(destination: ip("198.51.100.8"), source: ip("192.0.2.10"), mark: 7, uid: 1000),
        RouteQuery(destination: ip("::ffff:c633:6407"), source: ip("192.0.2.10"), mark: 7, uid: 1000),
        RouteQuery(destination: ip("198.51.100.7"), source: ip("192.0.2.11"), mark: 7, uid: 1000),
        RouteQuery(destination: ip("198.51.100.7"), source: nil, mark: 7, uid: 1000),
        RouteQuery(destination: ip("198.51.100.7"), source: ip("192.0.2.10"), mark: 8, uid: 1000),
        RouteQuery(destination: ip("198.51.100.7"), source: ip("192.0.2.10"), mark: nil, uid: 1000),
        RouteQuery(destination: ip("198.51.100.7"), source: ip("192.0.2.10"), mark: 7, uid: 0),
        RouteQuery(destination: ip("198.51.100.7"), source: ip("192.0.2.10"), mark: 7, uid: nil),
        RouteQuery(
            destination: ip("198.51.100.7"), source: ip("192.0.2.10"), mark: 7, uid: 1000, outputInterfaceIndex: 2),
    ]

    @Test func theSameFieldsMakeTheSameKey() {
        let again = RouteQuery(destination: ip("198.51.100.7"), source: ip("192.0.2.10"), mark: 7, uid: 1000)
        #expect(again == Self.base)
        #expect(again.hashValue == Self.base.hashValue)
        let table = [Self.base: RouteDecision.unroutable]
        #expect(table[again] == .unroutable)
    }

    @Test func everyFieldTellsQueriesApart() {
        for variant in Self.variants { #expect(variant != Self.base, "\(variant)") }
        let keys = Set(Self.variants + [Self.base])
        #expect(keys.count == Self.variants.count + 1)
        var table: [RouteQuery: Int] = [:]
        for (position, query) in (Self.variants + [Self.base]).enumerated() { table[query] = position }
        #expect(table[Self.base] == Self.variants.count)
        #expect(Self.variants.indices.allSatisfy { table[Self.variants[$0]] == $0 })
    }

    /// The output interface is its index: different indexes are different keys, and none is no index.
    @Test func outputInterfacesTellQueriesApart() {
        let indexes: [Int32] = [0, 1, 2, 3, 1000]
        let queries = indexes.map { RouteQuery(destination: ip("198.51.100.7"), outputInterfaceIndex: $0) }
        #expect(queries.map(\.outputInterfaceIndex) == indexes)
        #expect(Set(queries).count == indexes.count)
        #expect(RouteQuery(destination: ip("198.51.100.7")).outputInterfaceIndex == nil)
        #expect(!queries.contains(RouteQuery(destination: ip("198.51.100.7"))))
    }

    /// A watched flow keeps its pair; the pair is the flow's own two queries.
    @Test func aFlowsPairIsItsQueries() throws {
        let flow = Flow(
            interfaceName: "eth0", localAddress: ip("192.0.2.10"), remoteAddress: ip("198.51.100.7"),
            parameters: PathParameters(routingUser: 1000), isBoundToInterface: true, interfaceIndex: 2)
        let pair = try #require(flow.routeQueryPair)
        #expect(pair.current == flow.currentRouteQuery && pair.newConnection == flow.newConnectionRouteQuery)
        #expect(flow.routeQueries == [pair.current, pair.newConnection])
        #expect(pair.current.outputInterfaceIndex == 2 && pair.bound == nil, "IPv4 holds the interface with a source")
        #expect(Flow(interfaceName: "eth0", localAddress: ip("192.0.2.10")).routeQueryPair == nil)
    }

    /// A bound IPv6 flow asks a third question: its own without the source, which the kernel answers strictly
    /// out of the bound interface (with a source, RTM_GETROUTE takes the interface as a mere preference).
    @Test func aBoundIPv6FlowAlsoAsksWithoutItsSource() throws {
        let flow = Flow(
            interfaceName: "eth2", localAddress: ip("2001:db8:2::2"), remoteAddress: ip("2606:4700:4700::1111"),
            isBoundToInterface: true, interfaceIndex: 4)
        let queries = try #require(flow.routeQueryPair)
        let bound = try #require(queries.bound)
        #expect(bound.source == nil && bound.outputInterfaceIndex == 4 && bound.destination == flow.remoteAddress)
        #expect(queries.current.source == flow.localAddress && queries.current.outputInterfaceIndex == 4)
        #expect(flow.routeQueries == [queries.current, queries.newConnection, bound])
        var unbound = flow
        unbound.isBoundToInterface = false
        #expect(unbound.routeQueryPair?.bound == nil && unbound.routeQueries.count == 2)
        // Bound to an interface whose index is not known: a device that names no interface, so it goes nowhere.
        unbound.isBoundToInterface = true
        unbound.interfaceIndex = nil
        #expect(unbound.currentRouteQuery?.outputInterfaceIndex == 0)
    }

    /// The internet's probes, as any user, are probes; the same destination asked with a source, a mark or an
    /// interface is a flow's question, and so is the other family's address with the same number.
    @Test func onlyTheInternetsProbesAreProbes() throws {
        let probes =
            RouteQuery.internetProbes(user: 1000) + RouteQuery.internetProbes(.ipv4)
            + RouteQuery.internetProbes(.ipv6)
        #expect(probes.count == 16 && probes.allSatisfy(RouteQuery.isInternetProbe))
        let probe = try #require(RouteQuery.internetProbes(.ipv4).first)
        let asFlows = [
            RouteQuery(destination: probe.destination, source: IPAddress("192.0.2.10")!),
            RouteQuery(destination: probe.destination, mark: 7),
            RouteQuery(destination: probe.destination, outputInterfaceIndex: 2),
            RouteQuery(destination: IPAddress("1.1.1.2")!),
            RouteQuery(destination: IPAddress("::101:101")!),
            RouteQuery(destination: IPAddress("::909:909")!),
        ]
        #expect(asFlows.filter(RouteQuery.isInternetProbe).isEmpty)
    }

    /// The probes are the documented addresses, in the documented order (docs/routing.md): the first is what a
    /// tie goes to. The first IPv6 one was 2606:4700:4700::11, a byte short, and a multipath default hashed it onto
    /// another leg than 2606:4700:4700::1111 (issue 40).
    @Test func theProbesAreTheDocumentedAddresses() {
        #expect(
            RouteQuery.internetProbes(.ipv4).map(\.destination.description) == [
                "1.1.1.1", "9.9.9.9", "149.112.112.112", "208.67.222.222",
            ])
        #expect(
            RouteQuery.internetProbes(.ipv6).map(\.destination.description) == [
                "2606:4700:4700::1111", "2001:4860:4860::8888", "2620:fe::fe", "2a00:1450:4001::1",
            ])
        #expect(
            RouteQuery.internetProbes(user: 1000).map(\.destination) == RouteQuery.internetProbes(.ipv4).map(
                \.destination) + RouteQuery.internetProbes(.ipv6).map(\.destination))
    }
}
