// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

/// The hub's count of who asks each route query: a change names a query when its first asker comes and when its
/// last goes, never while others still ask it; a user's probes come with the user's first interest and go with
/// the last.
@Suite struct FlowQueryCountsTests {
    static let peer = IPAddress("192.0.2.7")!
    static func flow(from local: String) -> RouteQuery {
        RouteQuery(destination: peer, source: IPAddress(local)!)
    }
    static let newConnection = RouteQuery(destination: peer)

    @Test func aSharedQueryLeavesWithItsLastAsker() {
        var counts = FlowQueryCounts()
        let first = counts.count([Self.flow(from: "10.0.0.2"), Self.newConnection], user: nil, adding: true)
        #expect(first.added == [Self.flow(from: "10.0.0.2"), Self.newConnection] && first.removed.isEmpty)
        let second = counts.count([Self.flow(from: "10.0.0.3"), Self.newConnection], user: nil, adding: true)
        #expect(second.added == [Self.flow(from: "10.0.0.3")], "the new connection's query was asked already")
        let firstGone = counts.count([Self.flow(from: "10.0.0.2"), Self.newConnection], user: nil, adding: false)
        #expect(firstGone.removed == [Self.flow(from: "10.0.0.2")] && firstGone.added.isEmpty)
        let secondGone = counts.count([Self.flow(from: "10.0.0.3"), Self.newConnection], user: nil, adding: false)
        #expect(secondGone.removed == [Self.flow(from: "10.0.0.3"), Self.newConnection])
        #expect(counts.queries.isEmpty)
    }

    @Test func aUsersProbesComeWithItsFirstInterestAndGoWithItsLast() {
        var counts = FlowQueryCounts()
        let probes = Set(RouteQuery.internetProbes(user: 1000))
        #expect(counts.count([], user: 1000, adding: true).added == probes)
        #expect(counts.count([Self.newConnection], user: 1000, adding: true).added == [Self.newConnection])
        #expect(counts.count([], user: 1000, adding: false).isEmpty, "one of the user's interests is left")
        #expect(
            counts.count([Self.newConnection], user: 1000, adding: false).removed == probes.union([Self.newConnection]))
        #expect(counts.count([], user: RouteQuery.systemUser, adding: true).isEmpty, "root's probes are the path's own")
    }
}

/// The flows' round keeps each flow's two queries side by side, so that a slice answers whole flows.
@Suite struct FlowOrderTests {
    @Test func aFlowsTwoQueriesStandSideBySide() {
        var queries: Set<RouteQuery> = []
        for index in 0..<500 {
            let peer = IPAddress(bytes: [198, 51, UInt8(index / 250), UInt8(index % 250)])!
            queries.insert(RouteQuery(destination: peer, source: IPAddress("10.0.0.2")!, uid: 0))
            queries.insert(RouteQuery(destination: peer, uid: 0))
        }
        let order = FlowOrder(groupingByPeer: Array(queries)).queries
        #expect(order.count == 1000)
        for pair in stride(from: 0, to: order.count, by: 2) {
            #expect(order[pair].destination == order[pair + 1].destination)
            #expect(order[pair].source == nil && order[pair + 1].source != nil)
        }
    }
}
