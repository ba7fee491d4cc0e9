// SPDX-License-Identifier: Apache-2.0
/// Route queries in a fixed order, with each one's place in it: made once per set of watched flows, shared by the
/// rounds that ask them all and by the model that asks whether one still waits. Immutable.
public final class FlowOrder: Sendable {
    public let queries: [RouteQuery]
    let places: [RouteQuery: Int]

    /// `queries` without repeats, in their order. An array, not any sequence: a generic initializer ran
    /// unspecialized from the route follower's module, its dictionary and (by peer) its sort through run-time
    /// generic metadata, 43 M instructions for a thousand flows' 2,000 queries where specialized it is 2 M.
    public init(_ queries: [RouteQuery]) {
        var ordered: [RouteQuery] = []
        var places: [RouteQuery: Int] = [:]
        for query in queries where places[query] == nil {
            places[query] = ordered.count
            ordered.append(query)
        }
        self.queries = ordered
        self.places = places
    }

    public static let empty = FlowOrder([])

    /// `queries` ordered by peer, so that a flow's two queries (its own route, and a new connection's to its peer)
    /// stand side by side: a slice then answers whole flows. In hash order they fell apart, and whether the first
    /// slice finished any flow was luck (the first subscriber waited one slice or two).
    public convenience init(groupingByPeer queries: [RouteQuery]) {
        self.init(queries.sorted(by: RouteQuery.byPeer))
    }

    public func contains(_ query: RouteQuery) -> Bool { places[query] != nil }

    /// The last place of any of `queries` in this order; -1 when none is in it.
    public func lastPlace(among queries: [RouteQuery]) -> Int {
        queries.reduce(-1) { last, query in max(last, places[query] ?? -1) }
    }
}

/// The flows' route queries whose answers are still to come after a change: those of a round (`FlowOrder`) from a
/// position on. Equal only to itself at the same position: whether the waiting set moved is an identity and an
/// integer to compare, not two thousand queries.
public struct AwaitingQueries: Sendable, Hashable, ExpressibleByArrayLiteral {
    /// The round, and how far into it the slices have asked: a query placed at or after `start` waits.
    public let order: FlowOrder
    public private(set) var start: Int

    public init() {
        self.init(.empty, from: 0)
    }

    public init(_ order: FlowOrder, from start: Int = 0) {
        self.order = order
        self.start = min(start, order.queries.count)
    }

    /// These queries, waiting in their order (a test's stand-in for a round).
    public init(_ queries: some Sequence<RouteQuery>) {
        self.init(FlowOrder(Array(queries)))
    }

    public init(arrayLiteral queries: RouteQuery...) {
        // `[]`, every batch's default: the shared empty order, not a new one.
        self.init(queries.isEmpty ? .empty : FlowOrder(queries))
    }

    public var isEmpty: Bool { start >= order.queries.count }

    /// Whether `query`'s answer is still to come.
    public func contains(_ query: RouteQuery) -> Bool {
        guard let place = order.places[query] else { return false }
        return place >= start
    }

    /// The waiting queries, in the order they will be asked.
    public var remaining: ArraySlice<RouteQuery> { order.queries[start...] }

    public mutating func advance(by count: Int) {
        start = min(start + count, order.queries.count)
    }

    public static func == (lhs: AwaitingQueries, rhs: AwaitingQueries) -> Bool {
        (lhs.isEmpty && rhs.isEmpty) || (lhs.order === rhs.order && lhs.start == rhs.start)
    }

    public func hash(into hasher: inout Hasher) {
        if isEmpty {
            hasher.combine(0)
        } else {
            hasher.combine(ObjectIdentifier(order))
            hasher.combine(start)
        }
    }
}
