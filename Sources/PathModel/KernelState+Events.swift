// SPDX-License-Identifier: Apache-2.0
/// What each kernel event does to the tables, with what rtnetlink leaves out (a link down flushes its IPv4 routes
/// without RTM_DELROUTE; a link deleted takes its addresses and routes), and the routes' index kept with them.
extension KernelState {
    mutating func applyWithoutPruning(_ event: KernelEvent, _ changes: inout KernelChanges) {
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
            if tables.addressTable.removeAll(of: index) {
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
            if tables.addressTable.update(address) != address {
                changes.interfaces.insert(address.interfaceIndex)
                changes.linksOrAddresses = true
                if address.family == .ipv6 { tables.usableIPv6[address.key] = address.isUsable ? address.address : nil }
            }
        case .addressRemoved(let address):
            let index = address.interfaceIndex
            if tables.addressTable.remove(address) != nil {
                changes.interfaces.insert(index)
                changes.linksOrAddresses = true
                tables.usableIPv6[address.key] = nil
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
            tables.addressTable = AddressesByInterface()
            tables.usableIPv6 = [:]
            for address in snapshot.addresses {
                tables.addressTable.update(address)
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
