// SPDX-License-Identifier: Apache-2.0
/// One change the kernel announced, or a full dump that replaces everything known.
public enum KernelEvent: Sendable, Hashable {
    /// RTM_NEWLINK: a link appeared or changed (flags, name, operstate).
    case linkChanged(Link)
    /// RTM_DELLINK: the link is gone, and with it its addresses and routes.
    case linkRemoved(index: Int32)
    /// RTM_NEWADDR.
    case addressAdded(InterfaceAddress)
    /// RTM_DELADDR.
    case addressRemoved(InterfaceAddress)
    /// RTM_NEWROUTE for a default route; `replacing` when the message carried NLM_F_REPLACE.
    case routeAdded(DefaultRoute, replacing: Bool)
    /// RTM_DELROUTE for a default route.
    case routeRemoved(DefaultRoute)
    /// RTM_NEWROUTE with NLM_F_REPLACE that put an unreachable, blackhole or prohibit route into a default route's
    /// slot (a VPN kill switch): the routes in that slot (family, table, destination, metric) are gone.
    case routeSlotCleared(DefaultRoute)
    /// RTM_NEWNEIGH with a link-layer address (reachable, stale, permanent, ...).
    case neighbourChanged(Neighbour)
    /// RTM_DELNEIGH, or an entry that lost its link-layer address (failed, incomplete).
    case neighbourRemoved(interfaceIndex: Int32, address: IPAddress)
    /// RTM_NEWNEXTHOP: a nexthop object appeared or was replaced.
    case nexthopChanged(Nexthop)
    /// RTM_DELNEXTHOP: the nexthop is gone, and with it the routes that named it (the kernel deletes them
    /// without RTM_DELROUTE) and its place in every group.
    case nexthopRemoved(id: UInt32)
    /// RTM_NEWRULE or RTM_DELRULE: the routing rules changed. The model keeps no rules (the kernel's decisions,
    /// asked after the batch, say what they do); the event only names the cause.
    case rulesChanged
    /// A complete dump (at start, and after lost notifications): the only truth from here on.
    case snapshot(KernelSnapshot)
    /// The kernel's answers to standing route queries that changed, asked after the changes before it settled:
    /// each replaces the earlier answer to its query, and the others stand. `dropped`: queries no longer asked,
    /// whose answers are forgotten. (A snapshot carries the whole table.)
    case routeDecisions([RouteQuery: RouteDecision], dropped: Set<RouteQuery> = [])
}

/// Everything path evaluation needs, as one dump of links, addresses, default routes and neighbours saw it.
public struct KernelSnapshot: Sendable, Hashable {
    /// Every link.
    public var links: [Link]
    /// Every address, IPv4 and IPv6.
    public var addresses: [InterfaceAddress]
    /// The default routes (and split defaults), one per next hop, in every table; a route over a nexthop object
    /// appears once, unresolved (interface 0, its `nexthopID`).
    public var routes: [DefaultRoute]
    /// The resolved entries of the neighbour table.
    public var neighbours: [Neighbour]
    /// The kernel's answers to the standing route queries, asked right after the dump.
    public var decisions: [RouteQuery: RouteDecision]
    /// The nexthop objects, which routes with a `nexthopID` resolve through.
    public var nexthops: [Nexthop]

    public init(
        links: [Link] = [], addresses: [InterfaceAddress] = [], routes: [DefaultRoute] = [],
        neighbours: [Neighbour] = [], decisions: [RouteQuery: RouteDecision] = [:], nexthops: [Nexthop] = []
    ) {
        self.nexthops = nexthops
        self.links = links
        self.addresses = addresses
        self.routes = routes
        self.neighbours = neighbours
        self.decisions = decisions
    }
}

extension KernelEvent {
    /// Whether the event may change the interfaces themselves (their links or addresses), not only how traffic is
    /// routed over them: what hints derived from interfaces (leases, SIMs, NetworkManager's devices) depend on.
    public var changesInterfaces: Bool {
        switch self {
        case .linkChanged, .linkRemoved, .addressAdded, .addressRemoved, .snapshot: return true
        case .routeAdded, .routeRemoved, .routeSlotCleared, .neighbourChanged, .neighbourRemoved, .routeDecisions,
            .nexthopChanged, .nexthopRemoved, .rulesChanged:
            return false
        }
    }
}
