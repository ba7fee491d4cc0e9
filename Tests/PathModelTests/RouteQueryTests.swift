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
            destination: ip("198.51.100.7"), source: ip("192.0.2.10"), mark: 7, uid: 1000, outputInterface: "eth0"),
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

    /// The output interface is held in place: every name Linux allows reads back as given, and different names
    /// are different keys.
    @Test func outputInterfacesReadBackAndTellQueriesApart() {
        let names = ["eth0", "wlp0s20f3", "fifteen-bytes-x", "sixteen-bytes-xy", "wgé", "ü", ""]
        let queries = names.map { RouteQuery(destination: ip("198.51.100.7"), outputInterface: $0) }
        #expect(queries.map(\.outputInterface) == names)
        #expect(Set(queries).count == names.count)
        #expect(RouteQuery(destination: ip("198.51.100.7")).outputInterface == nil)
        #expect(!queries.contains(RouteQuery(destination: ip("198.51.100.7"))))
    }

    /// A name longer than any interface's keeps its first 16 bytes: still no interface's name, so it still routes
    /// nowhere; names that differ only past those bytes are one key.
    @Test func aTooLongNameStaysNoInterfacesName() throws {
        let long = RouteQuery(destination: ip("198.51.100.7"), outputInterface: "a-name-far-too-long-for-linux")
        let sibling = RouteQuery(destination: ip("198.51.100.7"), outputInterface: "a-name-far-too-long-at-all")
        #expect(long.outputInterface == "a-name-far-too-l")
        #expect(long == sibling)
        // A cut character reads as U+FFFD: more than 15 bytes, so no interface's name either.
        let cut = try #require(
            RouteQuery(destination: ip("198.51.100.7"), outputInterface: "fifteen-bytes-xé").outputInterface)
        #expect(cut.utf8.count > 15 && cut.hasSuffix("\u{FFFD}"))
    }

    /// A watched flow keeps its pair; the pair is the flow's own two queries.
    @Test func aFlowsPairIsItsQueries() throws {
        let flow = Flow(
            interfaceName: "eth0", localAddress: ip("192.0.2.10"), remoteAddress: ip("198.51.100.7"),
            parameters: PathParameters(routingUser: 1000), isBoundToInterface: true)
        let pair = try #require(flow.routeQueryPair)
        #expect(pair.current == flow.currentRouteQuery && pair.newConnection == flow.newConnectionRouteQuery)
        #expect(flow.routeQueries == [pair.current, pair.newConnection])
        #expect(Flow(interfaceName: "eth0", localAddress: ip("192.0.2.10")).routeQueryPair == nil)
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
            RouteQuery(destination: probe.destination, outputInterface: "eth0"),
            RouteQuery(destination: IPAddress("1.1.1.2")!),
            RouteQuery(destination: IPAddress("::101:101")!),
            RouteQuery(destination: IPAddress("::909:909")!),
        ]
        #expect(asFlows.filter(RouteQuery.isInternetProbe).isEmpty)
    }
}
