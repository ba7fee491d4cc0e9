// SPDX-License-Identifier: Apache-2.0
/// The model's copy of the kernel: links, addresses and default routes, kept current by applying events.
///
/// It also supplies what rtnetlink leaves out: when a link goes administratively down the kernel flushes its
/// IPv4 routes without sending RTM_DELROUTE, and when a link is deleted its addresses and routes go with it.
///
/// Addresses and routes are indexed by interface: one interface's are found without a scan of the whole table
/// (at 500 interfaces, the scan once per interface was half of a path flip). Applying an event says which
/// interfaces it touched (`KernelChanges`), what the tracker derives again.
public struct KernelState: Sendable, Hashable {
    /// The tables, in one box that copies of the state share until one of them changes (`CopyOnWrite`). Changed only
    /// by applying events (`KernelState+Applying.swift`, `KernelState+Events.swift`).
    @CopyOnWrite var tables = Tables()

    struct Tables: Sendable, Hashable {
        /// Links by interface index.
        var links: [Int32: Link] = [:]
        /// Addresses by interface index, each interface's sorted. No empty entry is kept, so that equal states
        /// compare equal.
        var addressTable = AddressesByInterface()
        /// The usable IPv6 addresses (`InterfaceAddress.isUsable`), kept with `addressTable`: the sources the IPv6
        /// probes are asked again from when the kernel has no route for them (an IPv4-only host, on every change),
        /// found without a pass over every interface's addresses.
        var usableIPv6: [AddressKey: IPAddress] = [:]
        /// The default routes, in no particular order; a route over a nexthop object appears once per next hop it
        /// resolves to (see `nexthops`), each with its `nexthopID`.
        var routes: Set<DefaultRoute> = []
        /// `routes` by interface index, kept with it by `insertRoute` and `removeRoute`.
        var routeTable = RoutesByInterface()
        /// The routes over nexthop objects as the kernel announced them (interface 0, a `nexthopID`).
        var nexthopRoutes: Set<DefaultRoute> = []
        var nexthopTable = NexthopTable()
        var neighbourTable: [NeighbourKey: Neighbour] = [:]
        /// The kernel's own routing decisions for the standing queries (the internet per family, flows, tunnel
        /// endpoints), as last asked. Not part of a dump: they are asked after it.
        var decisions: [RouteQuery: RouteDecision] = [:]
    }

    /// Links by interface index.
    public var links: [Int32: Link] {
        _read { yield tables.links }
    }
    /// The default routes, in no particular order; a route over a nexthop object appears once per next hop it
    /// resolves to (see `nexthops`), each with its `nexthopID`.
    public var routes: Set<DefaultRoute> {
        _read { yield tables.routes }
    }
    /// The kernel's own routing decisions for the standing queries (the internet per family, flows, tunnel
    /// endpoints), as last asked. Not part of a dump: they are asked after it.
    public var decisions: [RouteQuery: RouteDecision] {
        _read { yield tables.decisions }
    }

    public init() {}

    /// A state holding exactly what one dump saw.
    public init(_ snapshot: KernelSnapshot) {
        apply(.snapshot(snapshot))
    }

    /// All addresses, in no particular order. An array: an opaque lazy collection of the index's tables was walked
    /// through unspecialized witnesses outside this module, thousands of instructions per address.
    public var addresses: [InterfaceAddress] { tables.addressTable.all }

    /// The usable IPv6 addresses of every interface, sorted.
    public var usableIPv6Sources: [IPAddress] { tables.usableIPv6.values.sorted() }

    /// Whether any IPv6 address is usable as a source (no copy of them).
    public var hasUsableIPv6Source: Bool { !tables.usableIPv6.isEmpty }

    /// The kernel's nexthop objects, by id.
    public var nexthops: [Nexthop] { tables.nexthopTable.sorted }

    /// The addresses of one interface, sorted by address and then prefix length: the table's own array.
    public func addresses(of index: Int32) -> [InterfaceAddress] {
        tables.addressTable[index]
    }

    /// Whether one of the interface's addresses satisfies `predicate` (no copy of them).
    func hasAddress(on index: Int32, where predicate: (InterfaceAddress) -> Bool) -> Bool {
        tables.addressTable[index].contains(where: predicate)
    }

    /// The default routes out of one interface, in no particular order.
    public func routes(through index: Int32) -> [DefaultRoute] {
        tables.routeTable[index]
    }

    /// The link-layer address of a neighbour, if the kernel has resolved it.
    public func neighbour(_ address: IPAddress, on index: Int32) -> Neighbour? {
        tables.neighbourTable[NeighbourKey(interfaceIndex: index, address: address)]
    }

    /// The gateways of the routes whose link-layer address is not known yet: what the watcher asks the kernel to
    /// resolve.
    public var unresolvedGateways: Set<GatewayKey> {
        var unresolved: Set<GatewayKey> = []
        for route in tables.routes {
            guard let gateway = route.gateway,
                tables.neighbourTable[NeighbourKey(interfaceIndex: route.interfaceIndex, address: gateway)] == nil
            else { continue }
            unresolved.insert(GatewayKey(interfaceIndex: route.interfaceIndex, address: gateway))
        }
        return unresolved
    }

    /// Whether a route of the state leaves by this gateway.
    public func isGateway(_ gateway: GatewayKey) -> Bool {
        isGateway(NeighbourKey(interfaceIndex: gateway.interfaceIndex, address: gateway.address))
    }

    func isGateway(_ key: NeighbourKey) -> Bool {
        tables.routeTable[key.interfaceIndex].contains { $0.gateway == key.address }
    }

    /// The state as a dump would show it, sorted so that equal states give equal snapshots.
    public var snapshot: KernelSnapshot {
        KernelSnapshot(
            links: tables.links.values.sorted { $0.index < $1.index },
            addresses: addresses.sorted {
                ($0.interfaceIndex, $0.address) < ($1.interfaceIndex, $1.address)
            },
            routes: (tables.routes.filter { $0.nexthopID == nil } + tables.nexthopRoutes).sorted(
                by: DefaultRoute.displayOrder),
            neighbours: tables.neighbourTable.values.sorted {
                ($0.interfaceIndex, $0.address) < ($1.interfaceIndex, $1.address)
            },
            decisions: tables.decisions,
            nexthops: nexthops
        )
    }
}
