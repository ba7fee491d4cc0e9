import PathModel

/// Keeps the kernel's own routing decisions current: after every batch that may have changed routing (a link,
/// address, route, rule or nexthop message, kept by the model or not), it asks the kernel again for each standing
/// query (the internet per family, each tunnel's endpoints, the flows clients watch) and reports the answers when
/// they differ. No polling: a batch is what prompts it.
///
/// Not thread-safe: called only from the watcher's own queue (or thread), like the rest of the watcher.
final class RouteFollower {
    private let lookup: RouteLookupSocket?
    /// The links as the batches describe them: what the tunnel queries come from.
    private var links: [Int32: Link] = [:]
    /// Queries for flows, set by the daemon as clients come and go.
    private var flowQueries: Set<RouteQuery> = []
    /// The last answers reported.
    private(set) var decisions: [RouteQuery: RouteDecision] = [:]

    init(lookup: RouteLookupSocket?) {
        self.lookup = lookup
    }

    /// The queries asked after every change.
    var queries: Set<RouteQuery> { RouteQuery.standing(for: links.values).union(flowQueries) }

    /// Starts over from a dump and returns the answers for it.
    func restart(from snapshot: KernelSnapshot) -> [RouteQuery: RouteDecision] {
        links = Dictionary(snapshot.links.map { ($0.index, $0) }, uniquingKeysWith: { _, last in last })
        decisions = askAll()
        return decisions
    }

    /// Follows a batch; returns the event that carries the new answers when they changed.
    func follow(_ events: [KernelEvent], routingMayHaveChanged: Bool) -> KernelEvent? {
        for event in events {
            switch event {
            case .linkChanged(let link): links[link.index] = link
            case .linkRemoved(let index): links[index] = nil
            case .snapshot(let snapshot):
                links = Dictionary(snapshot.links.map { ($0.index, $0) }, uniquingKeysWith: { _, last in last })
            default: break
            }
        }
        guard routingMayHaveChanged else { return nil }
        return refresh()
    }

    /// Replaces the flows' queries; returns the event with the answers if that changed them.
    /// Only the new queries are asked: clients arriving one by one cost one look-up each, not all of them again.
    func setFlowQueries(_ queries: Set<RouteQuery>) -> KernelEvent? {
        guard queries != flowQueries else { return nil }
        flowQueries = queries
        let wanted = self.queries
        var fresh = decisions.filter { wanted.contains($0.key) }
        for query in wanted where fresh[query] == nil {
            if let decision = lookup?.decide(query) { fresh[query] = decision }
        }
        guard fresh != decisions else { return nil }
        decisions = fresh
        return .routeDecisions(fresh)
    }

    private func refresh() -> KernelEvent? {
        let fresh = askAll()
        guard fresh != decisions else { return nil }
        decisions = fresh
        return .routeDecisions(fresh)
    }

    /// Asks every query; one the kernel did not answer keeps its last answer (a transient failure is not news).
    private func askAll() -> [RouteQuery: RouteDecision] {
        guard let lookup else { return [:] }
        var answers: [RouteQuery: RouteDecision] = [:]
        for query in queries {
            if let decision = lookup.decide(query) ?? decisions[query] { answers[query] = decision }
        }
        return answers
    }
}
