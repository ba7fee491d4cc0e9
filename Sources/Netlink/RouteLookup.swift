// SPDX-License-Identifier: Apache-2.0
import PathModel

/// What became of a request to resolve a gateway.
enum GatewayResolution: Equatable {
    /// The kernel took it: its answer comes as a neighbour notification.
    case requested
    /// The kernel refused it (errno): EPERM without CAP_NET_ADMIN.
    case refused(errno: Int32)
    /// No reply came (a lost datagram); asked again later like an unanswered one.
    case noReply
}

/// The kernel's answers to a batch of route queries, in the order they were read: a list, not a table, since its
/// reader only walks it (each answer went into a table that was hashed once and thrown away).
typealias RouteAnswers = [(query: RouteQuery, decision: RouteDecision)]

/// What the follower asks of the kernel: `RouteLookupSocket`, or a stand-in that counts the questions in tests.
protocol RouteLookup: AnyObject {
    /// The kernel's decisions for these queries; one without an answer is missing.
    func decide(_ queries: some Collection<RouteQuery>) -> RouteAnswers
    /// The gateway's neighbour entry if the kernel has resolved it.
    func neighbour(_ gateway: GatewayKey) -> Neighbour?
    /// Asks the kernel to resolve the gateway.
    func resolve(_ gateway: GatewayKey) -> GatewayResolution
    /// The IPv6 routes that expire, and how long each has left; nil when they could not be read.
    func expiringRoutes() -> [RouteExpiry]?
}

extension RouteLookup {
    /// The kernel's decisions; a query for an output interface that does not exist goes nowhere, unasked (a socket
    /// bound to a vanished device cannot send; the kernel would route it as unbound).
    func decide(_ asked: some Collection<RouteQuery>, in state: KernelState) -> RouteAnswers {
        guard asked.contains(where: { $0.outputInterfaceIndex.map { state.links[$0] == nil } ?? false }) else {
            return decide(asked)
        }
        let (known, missing) = asked.reduce(into: ([RouteQuery](), [RouteQuery]())) { split, query in
            if let index = query.outputInterfaceIndex, state.links[index] == nil {
                split.1.append(query)
            } else {
                split.0.append(query)
            }
        }
        var answers = decide(known)
        answers.append(contentsOf: missing.map { ($0, .unroutable) })
        return answers
    }

    /// The IPv6 probes of the internet the kernel routes nowhere without a source, asked again from each usable
    /// IPv6 address: a source-specific default (`ip -6 route add default from 2001:db8::/64 via ...`) matches only
    /// a packet that has its source already, and `connect()` picks the source before it routes. The first source
    /// the kernel routes (in address order) gives the probe's answer. Costs nothing while IPv6 is routed without
    /// a source, the common case.
    func askUnroutedProbesWithSources(_ answers: inout RouteAnswers, in state: KernelState) {
        // An IPv4-only host (the probes unrouted, no source to try) looks at no answer.
        guard state.hasUsableIPv6Source else { return }
        // Found in one pass over the answers: an IPv6 probe is rare among a thousand flows' answers.
        let unrouted = answers.indices.filter {
            answers[$0].decision == .unroutable && answers[$0].query.destination.family == .ipv6
                && RouteQuery.isInternetProbe(answers[$0].query)
        }
        guard !unrouted.isEmpty else { return }
        let sources = state.usableIPv6Sources
        guard !sources.isEmpty else { return }
        let sourced = unrouted.flatMap { position in
            let probe = answers[position].query
            return sources.map { RouteQuery(destination: probe.destination, source: $0, uid: probe.uid) }
        }
        let found = Dictionary(decide(sourced), uniquingKeysWith: { first, _ in first })
        for position in unrouted {
            let probe = answers[position].query
            let routed = sources.lazy.compactMap { source -> RouteDecision? in
                let decision = found[RouteQuery(destination: probe.destination, source: source, uid: probe.uid)]
                return decision?.interfaceIndex == nil ? nil : decision
            }.first
            if let routed { answers[position].decision = routed }
        }
    }

    /// Stand-ins that know no expiring routes.
    func expiringRoutes() -> [RouteExpiry]? { nil }
}

extension RouteLookupSocket: RouteLookup {}
