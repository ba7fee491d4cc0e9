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
    /// The tables, in one box that copies of the state share until one of them changes (`CopyOnWrite`).
    @CopyOnWrite private var tables = Tables()

    private struct Tables: Sendable, Hashable {
        /// Links by interface index.
        var links: [Int32: Link] = [:]
        /// Addresses by interface index, then by key. No empty entry is kept, so that equal states compare equal.
        var addressTable: [Int32: [AddressKey: InterfaceAddress]] = [:]
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
    public var addresses: [InterfaceAddress] { tables.addressTable.values.flatMap(\.values) }

    /// The usable IPv6 addresses of every interface, sorted.
    public var usableIPv6Sources: [IPAddress] { tables.usableIPv6.values.sorted() }

    /// Whether any IPv6 address is usable as a source (no copy of them).
    public var hasUsableIPv6Source: Bool { !tables.usableIPv6.isEmpty }

    /// The kernel's nexthop objects, by id.
    public var nexthops: [Nexthop] { tables.nexthopTable.sorted }

    /// The addresses of one interface, in no particular order.
    public func addresses(of index: Int32) -> [InterfaceAddress] {
        tables.addressTable[index].map { Array($0.values) } ?? []
    }

    /// Whether one of the interface's addresses satisfies `predicate` (no copy of them).
    func hasAddress(on index: Int32, where predicate: (InterfaceAddress) -> Bool) -> Bool {
        tables.addressTable[index]?.values.contains(where: predicate) ?? false
    }

    /// The default routes out of one interface, in no particular order.
    public func routes(through index: Int32) -> [DefaultRoute] {
        tables.routeTable[index]
    }

    /// The link-layer address of a neighbour, if the kernel has resolved it.
    public func neighbour(_ address: IPAddress, on index: Int32) -> Neighbour? {
        tables.neighbourTable[NeighbourKey(interfaceIndex: index, address: address)]
    }

    /// Applies one kernel event; returns the interfaces it touched. Only the neighbours of gateways are kept (what
    /// names a wired network), so a busy LAN's table costs nothing: an entry for an address no route goes through
    /// is dropped on arrival, and one whose route went is released.
    @discardableResult
    public mutating func apply(_ event: KernelEvent) -> KernelChanges {
        var changes = KernelChanges()
        apply(event, &changes)
        return changes
    }

    /// Applies events in order; returns the interfaces they touched (one set for the batch, not one per event).
    @discardableResult
    public mutating func apply<Events: Sequence<KernelEvent>>(_ events: Events) -> KernelChanges {
        applyInOrder(events)
    }

    /// The same for an array, what the daemon passes: specialized here, where the generic form called from another
    /// module walked the batch through unspecialized witnesses (2,700 instructions a route flip).
    @discardableResult
    public mutating func apply(_ events: [KernelEvent]) -> KernelChanges {
        applyInOrder(events)
    }

    /// Applies events in order, as `apply(_:)` does, and takes out of `events` the neighbour and address messages
    /// that changed nothing: an entry for a host no route leaves by, a gateway's entry as it was (its NUD state,
    /// which the state does not keep, moving between REACHABLE and STALE), a gateway's entry going (kept while a
    /// route leaves by it), an address refreshed with new lifetimes (a lease renewed, a router advertisement). The
    /// events left are what another state fed the same events needs to end where this one does: the route
    /// follower applies each batch here first and hands the rest on, so that a LAN's neighbour churn and every
    /// renewal stop there instead of deriving the path again (`KernelStateNoOpTests`).
    public mutating func applyDroppingNoOps(_ events: inout [KernelEvent]) -> KernelChanges {
        var changes = KernelChanges()
        // Compacted in place: `kept` events stay at the front; none is moved until one is dropped.
        var kept = 0
        for position in events.indices {
            switch events[position] {
            case .neighbourChanged, .neighbourRemoved, .addressAdded:
                // Its own changes, apart: a table entry it changed on an interface the batch touched already
                // would not show in the batch's.
                var own = KernelChanges()
                apply(events[position], &own)
                if own.isEmpty { continue }
                changes.formUnion(own)
            default:
                apply(events[position], &changes)
            }
            if kept != position { events.swapAt(kept, position) }
            kept += 1
        }
        // All of them, most often (one LAN host's entry): the batch let go rather than copied to be emptied.
        if kept == 0 {
            events = []
        } else if kept < events.count {
            events.removeSubrange(kept...)
        }
        return changes
    }

    private mutating func applyInOrder<Events: Sequence<KernelEvent>>(_ events: Events) -> KernelChanges {
        var changes = KernelChanges()
        for event in events { apply(event, &changes) }
        return changes
    }

    private mutating func apply(_ event: KernelEvent, _ changes: inout KernelChanges) {
        applyWithoutPruning(event, &changes)
        switch event {
        case .neighbourChanged, .neighbourRemoved, .addressAdded, .routeDecisions: break
        default: releaseUnusedNeighbours(&changes)
        }
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

    private func isGateway(_ key: NeighbourKey) -> Bool {
        tables.routeTable[key.interfaceIndex].contains { $0.gateway == key.address }
    }

    private mutating func releaseUnusedNeighbours(_ changes: inout KernelChanges) {
        guard !tables.neighbourTable.isEmpty else { return }
        // Most often every entry is a gateway's: no list made then (two a route flip, the follower's and the
        // tracker's).
        var unused: [NeighbourKey] = []
        for key in tables.neighbourTable.keys where !isGateway(key) { unused.append(key) }
        for key in unused {
            guard let released = tables.neighbourTable.removeValue(forKey: key) else { continue }
            changes.releasedNeighbours.append(released)
            changes.interfaces.insert(key.interfaceIndex)
        }
    }

    private mutating func applyWithoutPruning(_ event: KernelEvent, _ changes: inout KernelChanges) {
        switch event {
        case .linkChanged(let link):
            let before = tables.links[link.index]
            let wasUp = before?.flags.contains(.up) ?? false
            if before != link {
                tables.links[link.index] = link
                changes.interfaces.insert(link.index)
                if let before, before.differsOnlyInState(from: link) {
                    changes.linkStates.insert(link.index)
                } else {
                    changes.linksOrAddresses = true
                }
            }
            if wasUp && !link.flags.contains(.up) {
                // Silent IPv4 flush on administrative down (see KERNEL-NOTES): mirror it. A multipath route only
                // marks that next hop dead, and revives it on up without a word, so it stays. Routes over nexthop
                // objects go with their nexthops, below.
                removeRoutes(through: link.index, &changes) {
                    $0.family == .ipv4 && !$0.isMultipath && $0.nexthopID == nil
                }
            }
            if !link.flags.contains(.up) || !(link.flags.contains(.running) || link.flags.contains(.lowerUp)) {
                // Down or without carrier, the kernel deletes the link's nexthops silently (and creates none on
                // such a link), so this is safe on every message of a link in that state.
                flushNexthops(through: link.index, &changes)
            }
        case .linkRemoved(let index):
            if tables.links.removeValue(forKey: index) != nil {
                changes.interfaces.insert(index)
                changes.linksOrAddresses = true
            }
            if tables.addressTable.removeValue(forKey: index) != nil {
                changes.interfaces.insert(index)
                changes.linksOrAddresses = true
                tables.usableIPv6 = tables.usableIPv6.filter { $0.key.interfaceIndex != index }
            }
            // An IPv4 multipath route with a next hop on the deleted link dies whole, without RTM_DELROUTE.
            let deadGroups = tables.routeTable[index].filter {
                $0.isMultipath && $0.family == .ipv4 && $0.nexthopID == nil
            }
            removeRoutes(through: index, &changes) { $0.nexthopID == nil }
            if !deadGroups.isEmpty {
                removeRoutes(&changes) { route in
                    route.nexthopID == nil && route.isMultipath && deadGroups.contains { $0.sharesSlot(with: route) }
                }
            }
            flushNexthops(through: index, &changes)
            tables.routeTable.forget(index)
            for key in tables.neighbourTable.keys where key.interfaceIndex == index {
                tables.neighbourTable[key] = nil
                changes.interfaces.insert(index)
            }
        case .neighbourChanged(let neighbour):
            if isGateway(neighbour.key),
                tables.neighbourTable.updateValue(neighbour, forKey: neighbour.key) != neighbour
            {
                changes.interfaces.insert(neighbour.interfaceIndex)
            }
        case .neighbourRemoved(let index, let address):
            // A gateway's entry goes FAILED or is collected between two ARP exchanges; the network behind it has
            // not changed, so its identity (and Low Data Mode) must not flap. It stays while a route uses it.
            let key = NeighbourKey(interfaceIndex: index, address: address)
            if !isGateway(key), tables.neighbourTable.removeValue(forKey: key) != nil {
                changes.interfaces.insert(index)
            }
        case .addressAdded(let address):
            if tables.addressTable[address.interfaceIndex, default: [:]].updateValue(address, forKey: address.key)
                != address
            {
                changes.interfaces.insert(address.interfaceIndex)
                changes.linksOrAddresses = true
                if address.family == .ipv6 { tables.usableIPv6[address.key] = address.isUsable ? address.address : nil }
            }
        case .addressRemoved(let address):
            let index = address.interfaceIndex
            if tables.addressTable[index]?.removeValue(forKey: address.key) != nil {
                changes.interfaces.insert(index)
                changes.linksOrAddresses = true
                tables.usableIPv6[address.key] = nil
                if tables.addressTable[index]?.isEmpty == true { tables.addressTable[index] = nil }
            }
            if address.family == .ipv4 && !hasAddress(on: index, where: { $0.family == .ipv4 }) {
                // The last IPv4 address gone: the kernel flushes the link's IPv4 routes without RTM_DELROUTE, but
                // not its nexthop objects nor the routes over them (measured).
                removeRoutes(through: index, &changes) { $0.family == .ipv4 && $0.nexthopID == nil }
            }
        case .routeAdded(let route, let replacing):
            if replacing {
                removeRoutes(&changes) { $0.sharesSlot(with: route) }
                tables.nexthopRoutes = tables.nexthopRoutes.filter { !$0.sharesSlot(with: route) }
            }
            if route.nexthopID != nil {
                tables.nexthopRoutes.insert(route)
                resolveNexthopRoutes(&changes)
            } else {
                insertRoute(route, &changes)
            }
        case .routeRemoved(let route):
            if route.nexthopID != nil {
                tables.nexthopRoutes.remove(route)
                resolveNexthopRoutes(&changes)
            } else {
                removeRoute(route, &changes)
            }
        case .routeSlotCleared(let slot):
            removeRoutes(&changes) { $0.sharesSlot(with: slot) }
            tables.nexthopRoutes = tables.nexthopRoutes.filter { !$0.sharesSlot(with: slot) }
        case .nexthopChanged(let nexthop):
            tables.nexthopTable.insert(nexthop)
            resolveNexthopRoutes(&changes)
        case .nexthopRemoved(let id):
            removeNexthops([id], &changes)
        case .rulesChanged:
            break
        case .routeDecisions(let answers, let dropped):
            // In place: a slice of flows changes a few dozen answers of thousands. The tracker compares the
            // kernel's choice itself, so no interface is named here.
            for query in dropped { tables.decisions.removeValue(forKey: query) }
            tables.decisions.merge(answers) { _, new in new }
        case .snapshot(let snapshot):
            changes.all = true
            changes.linksOrAddresses = true
            tables.links = Dictionary(snapshot.links.map { ($0.index, $0) }, uniquingKeysWith: { _, last in last })
            tables.addressTable = [:]
            tables.usableIPv6 = [:]
            for address in snapshot.addresses {
                tables.addressTable[address.interfaceIndex, default: [:]][address.key] = address
                if address.family == .ipv6 && address.isUsable { tables.usableIPv6[address.key] = address.address }
            }
            tables.routes = []
            tables.routeTable = RoutesByInterface()
            for route in snapshot.routes where route.nexthopID == nil { insertRoute(route, &changes) }
            tables.nexthopRoutes = Set(snapshot.routes.filter { $0.nexthopID != nil })
            tables.nexthopTable = NexthopTable()
            for nexthop in snapshot.nexthops { tables.nexthopTable.insert(nexthop) }
            resolveNexthopRoutes(&changes)
            tables.neighbourTable = Dictionary(
                snapshot.neighbours.map { ($0.key, $0) }.filter { isGateway($0.0) },
                uniquingKeysWith: { _, last in last })
            tables.decisions = snapshot.decisions
        }
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

    // Every change of `routes` goes through these two, which keep `routeTable` and name the interface.

    private mutating func insertRoute(_ route: DefaultRoute, _ changes: inout KernelChanges) {
        guard tables.routes.insert(route).inserted else { return }
        tables.routeTable.insert(route)
        changes.interfaces.insert(route.interfaceIndex)
    }

    private mutating func removeRoute(_ route: DefaultRoute, _ changes: inout KernelChanges) {
        guard tables.routes.remove(route) != nil else { return }
        tables.routeTable.remove(route)
        changes.interfaces.insert(route.interfaceIndex)
    }

    /// Removes the routes that satisfy `predicate`, looking through every route.
    private mutating func removeRoutes(_ changes: inout KernelChanges, where predicate: (DefaultRoute) -> Bool) {
        for route in tables.routes.filter(predicate) { removeRoute(route, &changes) }
    }

    /// Removes the routes out of one interface that satisfy `predicate`, looking through that interface's only.
    private mutating func removeRoutes(
        through index: Int32, _ changes: inout KernelChanges, where predicate: (DefaultRoute) -> Bool
    ) {
        for route in tables.routeTable[index].filter(predicate) { removeRoute(route, &changes) }
    }

    /// The kernel's silent flush of a link's nexthops (down, no carrier, deleted).
    private mutating func flushNexthops(through index: Int32, _ changes: inout KernelChanges) {
        guard !tables.nexthopTable.isEmpty else { return }
        removeNexthops(tables.nexthopTable.ids(through: index), &changes)
    }

    /// Removes nexthops as the kernel does: out of their groups, and with the routes that named any that went.
    private mutating func removeNexthops(_ ids: Set<UInt32>, _ changes: inout KernelChanges) {
        let gone = tables.nexthopTable.remove(ids)
        guard !gone.isEmpty else { return }
        tables.nexthopRoutes = tables.nexthopRoutes.filter { !gone.contains($0.nexthopID ?? 0) }
        resolveNexthopRoutes(&changes)
    }

    /// Replaces the resolved routes over nexthop objects with what the nexthops say now: one route per member.
    /// Only the routes that differ are removed or inserted, so only their interfaces are named.
    private mutating func resolveNexthopRoutes(_ changes: inout KernelChanges) {
        var resolved: Set<DefaultRoute> = []
        for route in tables.nexthopRoutes {
            guard let id = route.nexthopID else { continue }
            let members = tables.nexthopTable.members(of: id)
            for member in members {
                var hop = route
                hop.interfaceIndex = member.interfaceIndex
                hop.gateway = member.gateway
                hop.isMultipath = members.count > 1
                resolved.insert(hop)
            }
        }
        let before = tables.routes.filter { $0.nexthopID != nil }
        for route in before.subtracting(resolved) { removeRoute(route, &changes) }
        for route in resolved.subtracting(before) { insertRoute(route, &changes) }
    }
}
