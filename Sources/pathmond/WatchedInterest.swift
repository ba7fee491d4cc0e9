// SPDX-License-Identifier: Apache-2.0
import PathModel

/// One interest's subscribers and what they were last sent. A box, so that an update finds it again under the lock
/// without hashing the interest (a flow's hash covers its addresses, interface name and parameters, and a change
/// can reach a thousand of them). Touched only under the hub's lock.
final class WatchedInterest: @unchecked Sendable {
    let interest: Interest
    var subscribers: [ObjectIdentifier: any Subscriber] = [:]
    /// Nil until the first subscriber has derived it, or until the update after `firstValueAfter` has.
    var published: Update?
    /// For an interest of a user whose routing the kernel had not been asked about when it came: the version of
    /// the query set its value waits for (`PathHub.State.queriesAsked`).
    var firstValueAfter: UInt64?
    /// Left out of an update while its flow's new route answers were still to come: the next update derives it
    /// whatever changed. Touched by updates only, which `PathHub.updating` runs one at a time.
    var isAwaitingAnswers = false
    /// The last `PathHub.State.interestsToDerive` pass that took it (0: none), so that a pass takes it once.
    var derivationPass: UInt64 = 0

    /// The flow's route queries (none for a path), made once: a getter would build them on every update.
    let routeQueries: [RouteQuery]
    /// The same, for judging the flow (`FlowEvaluator`).
    let routeQueryPair: FlowRouteQueries?
    /// The round of flows' queries last asked about, and the last place of this flow's queries in it: the rounds of
    /// successive changes share one order while the flows stay the same, so a change's pass over a thousand flows
    /// compares a number each instead of hashing two thousand queries. Held, not identified by address, so that a
    /// new round cannot be taken for a freed one. Touched by updates only.
    private var placedIn: FlowOrder?
    private var lastPlace = -1

    /// Whether some of the flow's route answers are still to come in a later slice.
    func awaitsAnswers(_ awaiting: AwaitingQueries) -> Bool {
        guard !routeQueries.isEmpty, !awaiting.isEmpty else { return false }
        if placedIn !== awaiting.order {
            placedIn = awaiting.order
            lastPlace = awaiting.order.lastPlace(among: routeQueries)
        }
        return lastPlace >= awaiting.start
    }

    init(_ interest: Interest) {
        self.interest = interest
        if case .flow(let flow) = interest { routeQueryPair = flow.routeQueryPair } else { routeQueryPair = nil }
        routeQueries = routeQueryPair?.all ?? []
    }
}

/// What an update left as it was, so that an interest that depends on nothing else keeps its value without being
/// derived again: after a slice of flows' route answers (`RouteFollower`'s slices), the flows outside the slice and
/// every path. Only the system's routing user is judged (another user's interfaces would cost their own
/// derivation to compare).
struct KeptInputs {
    /// The interfaces and resolvers, from which every path of the system's routing is derived.
    let interfacesAndResolvers: Bool
    /// The route queries whose answers the update changed; nil: unknown (a snapshot), every flow may have moved.
    let changedAnswers: ChangedAnswers?

    /// What an update compares, read before it: not the tracker itself, whose copy would share the answers' table
    /// and make the update's first new answer copy all of them; nor its interfaces, whose copy would make the
    /// update's first new status copy every status: their version says whether they changed.
    struct Inputs {
        let interfacesVersion: UInt64
        let resolvers: ResolverConfiguration
        let evaluator: PathEvaluator

        init(_ tracker: PathTracker) {
            interfacesVersion = tracker.interfacesVersion
            resolvers = tracker.context.resolvers
            evaluator = tracker.evaluator
        }
    }

    init(before: Inputs, after: PathTracker, changedAnswers: ChangedAnswers?) {
        interfacesAndResolvers =
            before.interfacesVersion == after.interfacesVersion && before.resolvers == after.context.resolvers
            && before.evaluator == after.evaluator
        self.changedAnswers = changedAnswers
    }

    /// Whether the interest's value is certainly what it was: a path, or a flow whose own answers did not change
    /// (its status is a function of the interfaces, its parameters' path and those answers).
    func settle(_ box: WatchedInterest) -> Bool {
        guard interfacesAndResolvers else { return false }
        switch box.interest {
        case .path(let parameters):
            return parameters.routingUser == nil
        case .flow(let flow):
            guard let changedAnswers else { return false }
            return flow.parameters.routingUser == nil && !box.routeQueries.contains(where: changedAnswers.contains)
        }
    }
}

/// The route queries whose answers a batch's events change or drop, read from the events themselves: a set built
/// for every update cost as much as the answers it named.
struct ChangedAnswers {
    private typealias Change = (answers: [RouteQuery: RouteDecision], dropped: Set<RouteQuery>)
    /// A batch carries one event of answers, held here as it is: a list for it was an allocation a route flip.
    private var first: Change?
    private var more: [Change] = []

    init() {}

    init(_ events: [KernelEvent]) {
        for case .routeDecisions(let answers, let dropped) in events {
            if first == nil { first = (answers, dropped) } else { more.append((answers, dropped)) }
        }
    }

    func contains(_ query: RouteQuery) -> Bool {
        func holds(_ change: Change) -> Bool { change.answers[query] != nil || change.dropped.contains(query) }
        guard let first else { return false }
        return holds(first) || more.contains(where: holds)
    }
}
