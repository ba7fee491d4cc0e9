// SPDX-License-Identifier: Apache-2.0
import PathModel

/// Keeps what the kernel's routing decides current beside the batches: after every batch that may have changed
/// routing (a link, address, route, rule or nexthop message, kept by the model or not), it asks the kernel again
/// for each standing query (the internet per family, each tunnel's endpoints, the flows clients watch) and reports
/// the answers when they differ; and it has the routes' gateways resolved (`GatewayNeighbours`). No polling: a batch
/// is what prompts it.
///
/// Not thread-safe: called only on the watcher's loop thread, like the rest of the watcher.
final class RouteFollower {
    private let lookup: (any RouteLookup)?
    /// The kernel as the batches describe it: tunnels for their queries, gateways and their neighbours.
    private var state = KernelState()
    /// Queries for flows, changed by the daemon as clients come and go.
    private var flowQueries: Set<RouteQuery> = []
    /// The internet's probes among them (as users other than root): asked at once after a change, as the path's.
    private var flowProbes: Set<RouteQuery> = []
    /// The rest, in the order their slices ask them; made when a change first asks them all after the flows
    /// changed, so that clients arriving one by one never build it.
    private var cachedFlowOrder: FlowOrder?
    /// The last answers reported.
    private(set) var decisions: [RouteQuery: RouteDecision] = [:]
    /// What changed in `decisions` since the last event that said so: the event carries these alone. Carrying the
    /// whole table shared its storage with the model's copy, so each slice's first new answer copied all two
    /// thousand of a thousand flows' (a copy per slice on both sides, an eighth of a slice's time).
    private var unpublished: [RouteQuery: RouteDecision] = [:]
    private var dropped: Set<RouteQuery> = []
    /// Whether `unpublished` and `dropped` went out in the last event: emptied when next written, not as they go.
    /// As they went, the event still held their storage, so emptying them keeping their capacity made new tables
    /// for every change; by the next write the batch that carried them is gone, and they are emptied in place.
    private var handedOn = false
    /// The gateways' neighbour entries: their reachability, and those being resolved.
    private var gateways = GatewayNeighbours()

    /// Routes that expire, and when: a one-shot timer at the earliest asks again the queries its prefix covers.
    private var expiries = RouteExpiries()

    init(lookup: (any RouteLookup)?) {
        self.lookup = lookup
    }

    /// The path's standing queries (the internet's probes, tunnels' endpoints), and the queries asked at once after
    /// every change (those, and the flows' probes, less what the flows' slices ask): kept until links or those
    /// change (deriving them anew for each batch of a route storm cost more than the look-ups themselves).
    private var knownQueries: (standing: Set<RouteQuery>, others: [RouteQuery])?
    /// Whether the standing queries changed since the answers were last pruned to them.
    private var decisionsMayBeStale = false
    /// Whether every query asked has an answer, while known (nil: to be found out). While it does, a route that
    /// covers no query asks nothing without looking up each query's answer: with a thousand flows watched, that was
    /// two thousand look-ups for each host route of a storm. Answers only come or change for queries still asked,
    /// so it stays true until queries are added.
    private var everyQueryAnswered: Bool?
    /// The queries asked since `takeAnswered()`.
    private var answered: [RouteQuery] = []

    /// Every query asked: the standing ones and the flows'.
    var queries: Set<RouteQuery> { known.standing.union(flowQueries) }

    /// Whether `query` is still asked: a flow gone meanwhile is not.
    private func isAsked(_ query: RouteQuery) -> Bool {
        flowQueries.contains(query) || known.standing.contains(query)
    }

    /// The queries that are not the flows' slices' (`flowOrder`): asked at once after a change.
    private var otherQueries: [RouteQuery] { known.others }

    private var known: (standing: Set<RouteQuery>, others: [RouteQuery]) {
        if let knownQueries { return knownQueries }
        let standing = RouteQuery.standing(for: state.links.values)
        // A standing query that is also a flow's own goes in the flows' slices.
        var others = standing.filter { RouteQuery.isInternetProbe($0) || !flowQueries.contains($0) }
        others.formUnion(flowProbes)
        let known = (standing: standing, others: Array(others))
        knownQueries = known
        return known
    }

    /// The flows' queries but the probes, in the order their slices ask them.
    private var flowOrder: FlowOrder {
        if let cachedFlowOrder { return cachedFlowOrder }
        let order = FlowOrder(groupingByPeer: Array(flowQueries.lazy.filter { !RouteQuery.isInternetProbe($0) }))
        cachedFlowOrder = order
        return order
    }

    /// The standing queries may have changed (links did): derived again when next needed, and the answers pruned.
    private func standingMayHaveChanged() {
        knownQueries = nil
        decisionsMayBeStale = true
        everyQueryAnswered = nil
    }

    /// Whether an event may change the standing queries, read before it is applied: they are the internet's probes
    /// and the tunnels' endpoints, so only a link whose endpoints come, go or move does (a carrier flap on one of
    /// 500 veths made every standing query be listed again).
    private func changesQueries(_ event: KernelEvent) -> Bool {
        switch event {
        case .linkChanged(let link): return state.links[link.index]?.tunnel != link.tunnel
        case .linkRemoved(let index): return state.links[index]?.tunnel != nil
        case .snapshot: return true
        default: return false
        }
    }

    /// Starts over from a dump: fills in its decisions and the gateways' neighbours the kernel already knows.
    func restart(
        from snapshot: inout KernelSnapshot, expiries: [RouteExpiry] = [], now: ContinuousClock.Instant = .now
    ) {
        state = KernelState(snapshot)
        standingMayHaveChanged()
        decisions = [:]
        unpublished = [:]
        dropped = []
        handedOn = false
        slices.removeAll()
        flowsLeftDuringRound = false
        self.expiries = RouteExpiries()
        self.expiries.note(expiries, now: now)
        gateways.restart(listing: snapshot.neighbours)
        ask(queries)
        for event in resolveGateways(now: now) {
            if case .neighbourChanged(let neighbour) = event { snapshot.neighbours.append(neighbour) }
        }
        let requested = gateways.takeRequestedFamilies()
        if !requested.isEmpty { ask(queries.filter { requested.contains($0.destination.family) }) }
        // The snapshot carries the whole table: nothing of it is news after.
        snapshot.decisions = decisions
        unpublished = [:]
        dropped = []
        handedOn = false
    }

    /// Follows a batch; returns the events to append: new answers when they changed, gateways' neighbours found.
    /// A batch of routes the model does not keep (a host-route storm) changes no state and, unless one covers a
    /// query's destination (or a query still lacks an answer), asks nothing.
    func follow(
        _ events: [KernelEvent], routingChange: RoutingChange, now: ContinuousClock.Instant = .now
    ) -> [KernelEvent] {
        var batch = events
        let kept = follow(appendingTo: &batch, routingChange: routingChange, now: now)
        return Array(batch[kept...])
    }

    /// Follows a batch and appends to it what `follow(_:routingChange:now:)` returns: the watcher's way, with no
    /// array of its own for the one answer a route flip brings, copied into the batch and freed (1,000
    /// instructions). The batch's own messages that changed nothing are taken out first; returns how many of them
    /// are left, ahead of what was appended.
    @discardableResult
    func follow(
        appendingTo events: inout [KernelEvent], routingChange: RoutingChange, now: ContinuousClock.Instant = .now
    ) -> Int {
        var change = routingChange
        if !routingChange.expiries.isEmpty { expiries.note(routingChange.expiries, now: now) }
        var hasEvents = !events.isEmpty
        if hasEvents {
            let queriesMayChange = events.contains(where: changesQueries)
            // The gateways' released entries follow every neighbour message; the model only those it keeps. The
            // batch goes on without the messages that changed nothing here (`applyDroppingNoOps`): the tracker's
            // state, fed the same batches, would not change either.
            let received = events
            let changes = state.applyDroppingNoOps(&events)
            gateways.note(received, changes: changes)
            if queriesMayChange { standingMayHaveChanged() }
            // An address can move a decision only by what the model keeps of it (its presence, prefix, scope and
            // DAD state): one renewed with new lifetimes moves none, and asking again then re-asked every flow.
            if routingChange.addressesMayMove && changes.linksOrAddresses { change.includeEverything() }
            // None left: nothing changed, so no gateway is newly without its neighbour.
            hasEvents = !events.isEmpty
        }
        if routingChange.neighboursOverflowed {
            gateways.forgetReachability()
            change.include(.ipv4)
            change.include(.ipv6)
        } else if !routingChange.neighbours.isEmpty {
            for family in gateways.reachabilityChanges(routingChange.neighbours, in: state) { change.include(family) }
        }
        let kept = events.count
        if hasEvents {
            let found = resolveGateways(now: now)
            if !found.isEmpty { events += found }
        }
        for family in gateways.takeRequestedFamilies() { change.include(family) }
        if !change.isEmpty, let decided = refresh(change) { events.append(decided) }
        return kept
    }

    /// Whether a neighbour message may change anything here: one about the entry of a gateway the model's routes
    /// leave by (which the model keeps, and whose reachability moves the kernel's choice), unless it says what the
    /// follower holds of that entry (the same link-layer address, usable, as route selection already sees it: the
    /// entry moving between REACHABLE and STALE as traffic comes and goes), or one about an entry kept for a
    /// gateway whose route went. The model ignores every other entry (`KernelState.applyDroppingNoOps`), and would
    /// drop the restated one (`GatewayNeighbours.reachabilityChanges` would find nothing moved either).
    func reads(_ message: NeighbourMessage) -> Bool {
        guard state.isGateway(message.key) else { return gateways.isReleased(message.key) }
        guard message.followerIsCurrent, gateways.seesUsable(message.key),
            let held = state.neighbour(message.key.address, on: message.key.interfaceIndex)
        else { return true }
        return !message.restates(held)
    }

    /// Changes the flows' queries; returns the event with the answers if that changed them. Only the added queries
    /// are asked and only the removed ones' answers dropped: a client coming or going costs its own queries, not a
    /// pass over every flow's (which made a thousand clients arriving one by one cost 2.5 s of CPU).
    func changeFlowQueries(_ change: FlowQueryChange) -> KernelEvent? {
        guard !change.isEmpty else { return nil }
        everyQueryAnswered = nil
        let touched = change.added.union(change.removed)
        // The queries asked at once change only if a probe, or a standing query, joined or left the flows.
        if touched.contains(where: { RouteQuery.isInternetProbe($0) || known.standing.contains($0) }) {
            knownQueries = nil
        }
        if touched.contains(where: { !RouteQuery.isInternetProbe($0) }) { cachedFlowOrder = nil }
        if !change.removed.isEmpty && !slices.isEmpty { flowsLeftDuringRound = true }
        flowQueries.subtract(change.removed)
        flowProbes.subtract(change.removed)
        flowQueries.formUnion(change.added)
        flowProbes.formUnion(change.added.lazy.filter(RouteQuery.isInternetProbe))
        var changed = false
        takeBackHandedOn()
        for query in change.removed where !isAsked(query) {
            unpublished.removeValue(forKey: query)
            guard decisions.removeValue(forKey: query) != nil else { continue }
            dropped.insert(query)
            changed = true
        }
        let newFlows = change.added.filter { !RouteQuery.isInternetProbe($0) && decisions[$0] == nil }
        let asked = askFirstSlice(
            others: otherQueries.filter { decisions[$0] == nil }, flows: FlowOrder(groupingByPeer: Array(newFlows)))
        return published(changed || asked)
    }

    /// Asks again the queries the change may have affected (a route only those its prefix covers) and those still
    /// without an answer.
    private func refresh(_ change: RoutingChange) -> KernelEvent? {
        // The prefix test first: it is cheaper than the look-up, and a default route's change covers every query.
        let someLackAnswers = !allQueriesAnswered
        func due(_ query: RouteQuery) -> Bool {
            change.affects(query.destination) || (someLackAnswers && decisions[query] == nil)
        }
        // Usually all of them (a default route covers every probe): the standing list itself then, not a copy.
        // Else those due, in one array made to size (`filter` grew one, an allocation per doubling, and a route
        // flip of one family leaves the other family's probes out).
        let others: [RouteQuery]
        if otherQueries.allSatisfy(due) {
            others = otherQueries
        } else {
            var some: [RouteQuery] = []
            some.reserveCapacity(otherQueries.count)
            for query in otherQueries where due(query) { some.append(query) }
            others = some
        }
        // A change that asks every flow (a default route, a link) queues the flows' own order, made when they
        // last changed: two thousand queries queued without hashing one. While every flow has an answer, only
        // those its routes cover are due, found in that order (sorted by peer) by bisection.
        let flows: FlowOrder
        if !someLackAnswers, let covered = change.coveredPositions(inDestinationOrder: flowOrder.queries) {
            flows =
                covered.count == flowOrder.queries.count ? flowOrder : FlowOrder(covered.map { flowOrder.queries[$0] })
        } else {
            flows = flowOrder.queries.allSatisfy(due) ? flowOrder : FlowOrder(flowOrder.queries.filter(due))
        }
        return published(askFirstSlice(others: others, flows: flows))
    }

    /// Whether every query asked has an answer (`everyQueryAnswered`, found out when unknown).
    private var allQueriesAnswered: Bool {
        if let everyQueryAnswered { return everyQueryAnswered }
        let answered =
            otherQueries.allSatisfy { decisions[$0] != nil }
            && flowOrder.queries.allSatisfy { decisions[$0] != nil }
        everyQueryAnswered = answered
        return answered
    }

    /// Flows' queries left for later turns of the loop.
    private var slices = FlowSlices()
    /// Whether a flow's queries were removed since the slices' round began: only then may a waiting one be gone.
    private var flowsLeftDuringRound = false

    /// Whether flows' queries wait for `askNextSlice()`.
    var hasPendingSlices: Bool { !slices.isEmpty }

    /// The flows' queries that wait for `askNextSlice()`.
    var awaitingQueries: AwaitingQueries { slices.waiting }

    /// Asks `others` (what the path needs) now with the first slice of the flows' queries `flows`; the other flows'
    /// queries wait for `askNextSlice()`, their last answers standing meanwhile.
    private func askFirstSlice(others: [RouteQuery], flows: FlowOrder) -> Bool {
        let first = slices.first(of: flows)
        return first.isEmpty ? ask(others) : ask(others + first)
    }

    /// Asks the next slice of flows' queries (those still asked); returns the event with the answers if they
    /// changed anything.
    func askNextSlice() -> KernelEvent? {
        // While no flow left, every waiting query is still asked: not hashed again to find that out.
        let slice = flowsLeftDuringRound ? slices.next(where: isAsked) : slices.next(where: { _ in true })
        if slices.isEmpty { flowsLeftDuringRound = false }
        return published(ask(slice))
    }

    /// The event that tells the model what changed in the decisions, if anything did.
    private func published(_ changed: Bool) -> KernelEvent? {
        guard changed else { return nil }
        handedOn = true
        return .routeDecisions(unpublished, dropped: dropped)
    }

    /// Empties what the last event carried, keeping the storage: each slice of flows' answers fills them again to
    /// the same size.
    private func takeBackHandedOn() {
        guard handedOn else { return }
        handedOn = false
        unpublished.removeAll(keepingCapacity: true)
        dropped.removeAll(keepingCapacity: true)
    }

    /// The queries asked since the last call, whose answers are in `decisions` (changed or not): what the model
    /// must look at again when nothing else changed.
    func takeAnswered() -> [RouteQuery] {
        defer { answered = [] }
        return answered
    }

    /// Asks the kernel `asked` and keeps the answers; a query the kernel did not answer keeps its last answer (a
    /// transient failure is not news), and answers to queries no longer standing are dropped. True if any answer
    /// changed. Answers are stored in place: a change to a thousand flows is two thousand answers, and copying,
    /// filtering and comparing whole tables for each cost more than the answers that changed.
    @discardableResult
    private func ask(_ asked: some Collection<RouteQuery>) -> Bool {
        guard let lookup else { return false }
        var changed = false
        takeBackHandedOn()
        if decisions.count > 0 && decisionsMayBeStale {
            // Removed in place: rebuilding the table for every client that comes or goes cost a thousand
            // subscriptions a million copied answers.
            for query in decisions.keys.filter({ !isAsked($0) }) {
                decisions.removeValue(forKey: query)
                unpublished.removeValue(forKey: query)
                dropped.insert(query)
                changed = true
            }
        }
        decisionsMayBeStale = false
        guard !asked.isEmpty else { return changed }
        if answered.isEmpty { answered = Array(asked) } else { answered.append(contentsOf: asked) }
        var answers = lookup.decide(asked, in: state)
        lookup.askUnroutedProbesWithSources(&answers, in: state)
        // New answers may be the missing ones.
        if everyQueryAnswered == false { everyQueryAnswered = nil }
        for (query, decision) in answers where decisions.updateValue(decision, forKey: query) != decision {
            unpublished[query] = decision
            // Rarely anything in it: not hashed for each of a thousand flows' answers then.
            if !dropped.isEmpty { dropped.remove(query) }
            changed = true
        }
        return changed
    }

    /// The gateways newly without a known neighbour: their entries looked up, or resolution asked for.
    private func resolveGateways(now: ContinuousClock.Instant) -> [KernelEvent] {
        guard let lookup else { return [] }
        let found = gateways.resolveNew(in: state, lookup: lookup, now: now)
        state.apply(found)
        return found
    }

    /// When the next route expires (with its slack), to ask again then; nil if none does.
    var nextExpiry: ContinuousClock.Instant? { expiries.next }

    /// At a route's expiry: asks again the queries the expired routes' prefixes cover, and reads the expiries
    /// afresh (a router advertisement extends a route's lifetime without a message). Returns the new answers if
    /// they changed.
    func expire(now: ContinuousClock.Instant = .now) -> KernelEvent? {
        let due = expiries.prefixesDue(at: now)
        guard !due.isEmpty else { return nil }
        if let fresh = lookup?.expiringRoutes() {
            expiries = RouteExpiries()
            expiries.note(fresh, now: now)
        } else {
            expiries.removeDue(at: now)
        }
        return refresh(RoutingChange(prefixes: due))
    }

    /// When a gateway being resolved is next to be asked again; nil if none is.
    var nextResolveRetry: ContinuousClock.Instant? { gateways.nextRetry }

    /// Asks again for the gateways whose wait is over (`GatewayNeighbours.retryDue`); returns the neighbours found,
    /// and the new answers if the requests moved routing.
    func retryResolving(now: ContinuousClock.Instant = .now) -> [KernelEvent] {
        guard let lookup else { return [] }
        var found = gateways.retryDue(in: state, lookup: lookup, now: now)
        state.apply(found)
        let requested = gateways.takeRequestedFamilies()
        if !requested.isEmpty, let decided = refresh(RoutingChange(families: requested)) { found.append(decided) }
        return found
    }

    /// The errno of the kernel's refusal to resolve, once: for the daemon to say what it costs.
    func takeRefusal() -> Int32? { gateways.takeRefusal() }
}
