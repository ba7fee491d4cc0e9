// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PathModel

/// The flows' queries still to come after a change (issue 25): a shared order and a position, compared by identity
/// and position rather than by content.
struct AwaitingQueriesTests {
    let queries = (1...5).map { RouteQuery(destination: IPAddress(bytes: [192, 0, 2, UInt8($0)])!) }

    @Test func anOrderKeepsTheFirstOfRepeats() {
        let order = FlowOrder(queries + queries.reversed())
        #expect(order.queries == queries)
        #expect(queries.allSatisfy(order.contains))
        #expect(!order.contains(RouteQuery(destination: IPAddress(bytes: [192, 0, 2, 9])!)))
    }

    @Test func whatWaitsIsWhatLiesPastThePosition() {
        let order = FlowOrder(queries)
        var waiting = AwaitingQueries(order, from: 2)
        #expect(!waiting.contains(queries[0]) && !waiting.contains(queries[1]))
        #expect(waiting.contains(queries[2]) && waiting.contains(queries[4]))
        #expect(Array(waiting.remaining) == Array(queries[2...]))
        waiting.advance(by: 2)
        #expect(Array(waiting.remaining) == [queries[4]] && !waiting.isEmpty)
        waiting.advance(by: 10)
        #expect(waiting.isEmpty && !waiting.contains(queries[4]))
    }

    @Test func equalityIsTheRoundAndThePosition() {
        let order = FlowOrder(queries)
        #expect(AwaitingQueries(order, from: 1) == AwaitingQueries(order, from: 1))
        #expect(AwaitingQueries(order, from: 1) != AwaitingQueries(order, from: 2))
        // The same queries in another round are another wait: the model hears of it.
        #expect(AwaitingQueries(order, from: 1) != AwaitingQueries(FlowOrder(queries), from: 1))
        // Nothing waiting is nothing waiting, whichever round ended.
        #expect(AwaitingQueries(order, from: 5) == AwaitingQueries())
        #expect(Set([AwaitingQueries(order, from: 5), AwaitingQueries()]).count == 1)
        #expect(AwaitingQueries(queries).contains(queries[0]) && ([] as AwaitingQueries).isEmpty)
    }
}

extension AwaitingQueriesTests {
    @Test func aFlowsLastPlaceDecidesWhetherItWaits() {
        let order = FlowOrder(queries)
        #expect(order.lastPlace(among: [queries[3], queries[1]]) == 3)
        #expect(order.lastPlace(among: [RouteQuery(destination: IPAddress(bytes: [192, 0, 2, 9])!)]) == -1)
        #expect(order.lastPlace(among: []) == -1)
        let waiting = AwaitingQueries(order, from: 2)
        #expect(waiting.order === order && waiting.start == 2)
    }
}
