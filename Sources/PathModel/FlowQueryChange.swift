// SPDX-License-Identifier: Apache-2.0
/// A change to the route queries clients' interests add (each watched flow's, and the internet's probes as each
/// user other than root whose path or flows are watched): what the hub hands the kernel watcher when an interest
/// comes or goes. A change, not the whole set: handing over every query each time made a thousand clients
/// arriving one by one cost a pass over every flow's queries each, on both sides (2.5 s of CPU for 1,000 flows).
public struct FlowQueryChange: Sendable, Hashable {
    public var added: Set<RouteQuery>
    public var removed: Set<RouteQuery>

    public init(added: Set<RouteQuery> = [], removed: Set<RouteQuery> = []) {
        self.added = added
        self.removed = removed
    }

    /// The change that makes `old` into `new`.
    public init(from old: Set<RouteQuery>, to new: Set<RouteQuery>) {
        self.init(added: new.subtracting(old), removed: old.subtracting(new))
    }

    public var isEmpty: Bool { added.isEmpty && removed.isEmpty }
}

/// How many interests ask each route query: a query is added when its first asker comes and removed when its last
/// goes (two flows to one peer share the query of a new connection to it; a user's probes are shared by all that
/// user's interests).
public struct FlowQueryCounts: Sendable {
    private var askers: [RouteQuery: Int] = [:]
    private var usersAsking: [UInt32: Int] = [:]

    public init() {}

    /// Counts `queries`, asked as `user` (nil: the system's routing), in (`adding`) or out; returns what changed.
    public mutating func count(
        _ queries: some Sequence<RouteQuery>, user: UInt32?, adding: Bool
    ) -> FlowQueryChange {
        var change = FlowQueryChange()
        var counted = Array(queries)
        if let user, user != RouteQuery.systemUser {
            let askers = (usersAsking[user] ?? 0) + (adding ? 1 : -1)
            usersAsking[user] = askers > 0 ? askers : nil
            if askers == (adding ? 1 : 0) { counted += RouteQuery.internetProbes(user: user) }
        }
        for query in counted {
            let askers = (self.askers[query] ?? 0) + (adding ? 1 : -1)
            self.askers[query] = askers > 0 ? askers : nil
            if adding && askers == 1 { change.added.insert(query) }
            if !adding && askers == 0 { change.removed.insert(query) }
        }
        return change
    }

    /// Every query counted in.
    public var queries: Set<RouteQuery> { Set(askers.keys) }
}
