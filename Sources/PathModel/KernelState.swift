// SPDX-License-Identifier: Apache-2.0
/// The model's copy of the kernel: links, addresses and default routes, kept current by applying events.
///
/// It also supplies what rtnetlink leaves out: when a link goes administratively down the kernel flushes its
/// IPv4 routes without sending RTM_DELROUTE, and when a link is deleted its addresses and routes go with it.
public struct KernelState: Sendable, Hashable {
    /// Links by interface index.
    public private(set) var links: [Int32: Link] = [:]
    private var addressTable: [AddressKey: InterfaceAddress] = [:]
    /// The default routes, in no particular order; a route over a nexthop object appears once per next hop it
    /// resolves to (see `nexthops`), each with its `nexthopID`.
    public private(set) var routes: Set<DefaultRoute> = []
    /// The routes over nexthop objects as the kernel announced them (interface 0, a `nexthopID`).
    private var nexthopRoutes: Set<DefaultRoute> = []
    private var nexthopTable = NexthopTable()
    private var neighbourTable: [NeighbourKey: Neighbour] = [:]
    /// The kernel's own routing decisions for the standing queries (the internet per family, flows, tunnel
    /// endpoints), as last asked. Not part of a dump: they are asked after it.
    public private(set) var decisions: [RouteQuery: RouteDecision] = [:]

    public init() {}

    /// A state holding exactly what one dump saw.
    public init(_ snapshot: KernelSnapshot) {
        apply(.snapshot(snapshot))
    }

    /// All addresses, in no particular order.
    public var addresses: some Collection<InterfaceAddress> { addressTable.values }

    /// The kernel's nexthop objects, by id.
    public var nexthops: [Nexthop] { nexthopTable.sorted }

    /// The addresses of one interface.
    public func addresses(of index: Int32) -> [InterfaceAddress] {
        addressTable.values.filter { $0.interfaceIndex == index }
    }

    /// The default routes out of one interface.
    public func routes(through index: Int32) -> [DefaultRoute] {
        routes.filter { $0.interfaceIndex == index }
    }

    /// The link-layer address of a neighbour, if the kernel has resolved it.
    public func neighbour(_ address: IPAddress, on index: Int32) -> Neighbour? {
        neighbourTable[NeighbourKey(interfaceIndex: index, address: address)]
    }

    /// Applies one kernel event. Only the neighbours of gateways are kept (what names a wired network), so a busy
    /// LAN's table costs nothing: an entry for an address no route goes through is dropped on arrival, and one
    /// whose route went is released.
    public mutating func apply(_ event: KernelEvent) {
        applyWithoutPruning(event)
        switch event {
        case .neighbourChanged, .neighbourRemoved, .addressAdded, .routeDecisions: break
        default: releaseUnusedNeighbours()
        }
    }

    /// The gateways of the routes whose link-layer address is not known yet: what the watcher asks the kernel to
    /// resolve.
    public var unresolvedGateways: Set<GatewayKey> {
        Set(
            routes.compactMap { route in
                route.gateway.map { GatewayKey(interfaceIndex: route.interfaceIndex, address: $0) }
            }.filter { neighbourTable[NeighbourKey(interfaceIndex: $0.interfaceIndex, address: $0.address)] == nil })
    }

    /// Whether a route of the state leaves by this gateway.
    public func isGateway(_ gateway: GatewayKey) -> Bool {
        isGateway(NeighbourKey(interfaceIndex: gateway.interfaceIndex, address: gateway.address))
    }

    private func isGateway(_ key: NeighbourKey) -> Bool {
        routes.contains { $0.interfaceIndex == key.interfaceIndex && $0.gateway == key.address }
    }

    private mutating func releaseUnusedNeighbours() {
        guard !neighbourTable.isEmpty else { return }
        let gateways = Set(
            routes.compactMap { route in
                route.gateway.map { NeighbourKey(interfaceIndex: route.interfaceIndex, address: $0) }
            })
        guard neighbourTable.keys.contains(where: { !gateways.contains($0) }) else { return }
        neighbourTable = neighbourTable.filter { gateways.contains($0.key) }
    }

    private mutating func applyWithoutPruning(_ event: KernelEvent) {
        switch event {
        case .linkChanged(let link):
            let wasUp = links[link.index]?.flags.contains(.up) ?? false
            links[link.index] = link
            if wasUp && !link.flags.contains(.up) {
                // Silent IPv4 flush on administrative down (see KERNEL-NOTES): mirror it. A multipath route only
                // marks that next hop dead, and revives it on up without a word, so it stays. Routes over nexthop
                // objects go with their nexthops, below.
                routes = routes.filter {
                    !($0.interfaceIndex == link.index && $0.family == .ipv4 && !$0.isMultipath && $0.nexthopID == nil)
                }
            }
            if !link.flags.contains(.up) || !(link.flags.contains(.running) || link.flags.contains(.lowerUp)) {
                // Down or without carrier, the kernel deletes the link's nexthops silently (and creates none on
                // such a link), so this is safe on every message of a link in that state.
                flushNexthops(through: link.index)
            }
        case .linkRemoved(let index):
            links[index] = nil
            addressTable = addressTable.filter { $0.key.interfaceIndex != index }
            // An IPv4 multipath route with a next hop on the deleted link dies whole, without RTM_DELROUTE.
            let deadGroups = routes.filter {
                $0.interfaceIndex == index && $0.isMultipath && $0.family == .ipv4 && $0.nexthopID == nil
            }
            routes = routes.filter { route in
                route.nexthopID != nil
                    || (route.interfaceIndex != index
                        && !deadGroups.contains { $0.sharesSlot(with: route) && route.isMultipath })
            }
            flushNexthops(through: index)
            neighbourTable = neighbourTable.filter { $0.key.interfaceIndex != index }
        case .neighbourChanged(let neighbour):
            if isGateway(neighbour.key) { neighbourTable[neighbour.key] = neighbour }
        case .neighbourRemoved(let index, let address):
            // A gateway's entry goes FAILED or is collected between two ARP exchanges; the network behind it has
            // not changed, so its identity (and Low Data Mode) must not flap. It stays while a route uses it.
            let isGateway = routes.contains { $0.interfaceIndex == index && $0.gateway == address }
            if !isGateway { neighbourTable[NeighbourKey(interfaceIndex: index, address: address)] = nil }
        case .addressAdded(let address):
            addressTable[address.key] = address
        case .addressRemoved(let address):
            addressTable[address.key] = nil
            if address.family == .ipv4
                && !addressTable.values.contains(where: {
                    $0.interfaceIndex == address.interfaceIndex && $0.family == .ipv4
                })
            {
                // The last IPv4 address gone: the kernel flushes the link's IPv4 routes without RTM_DELROUTE, but
                // not its nexthop objects nor the routes over them (measured).
                routes = routes.filter {
                    !($0.interfaceIndex == address.interfaceIndex && $0.family == .ipv4 && $0.nexthopID == nil)
                }
            }
        case .routeAdded(let route, let replacing):
            if replacing {
                routes = routes.filter { !$0.sharesSlot(with: route) }
                nexthopRoutes = nexthopRoutes.filter { !$0.sharesSlot(with: route) }
            }
            if route.nexthopID != nil {
                nexthopRoutes.insert(route)
                resolveNexthopRoutes()
            } else {
                routes.insert(route)
            }
        case .routeRemoved(let route):
            if route.nexthopID != nil {
                nexthopRoutes.remove(route)
                resolveNexthopRoutes()
            } else {
                routes.remove(route)
            }
        case .routeSlotCleared(let slot):
            routes = routes.filter { !$0.sharesSlot(with: slot) }
            nexthopRoutes = nexthopRoutes.filter { !$0.sharesSlot(with: slot) }
        case .nexthopChanged(let nexthop):
            nexthopTable.insert(nexthop)
            resolveNexthopRoutes()
        case .nexthopRemoved(let id):
            removeNexthops([id])
        case .rulesChanged:
            break
        case .routeDecisions(let answers, let dropped):
            // In place: a slice of flows changes a few dozen answers of thousands.
            for query in dropped { decisions.removeValue(forKey: query) }
            decisions.merge(answers) { _, new in new }
        case .snapshot(let snapshot):
            links = Dictionary(snapshot.links.map { ($0.index, $0) }, uniquingKeysWith: { _, last in last })
            addressTable = Dictionary(snapshot.addresses.map { ($0.key, $0) }, uniquingKeysWith: { _, last in last })
            routes = Set(snapshot.routes.filter { $0.nexthopID == nil })
            nexthopRoutes = Set(snapshot.routes.filter { $0.nexthopID != nil })
            nexthopTable = NexthopTable()
            for nexthop in snapshot.nexthops { nexthopTable.insert(nexthop) }
            resolveNexthopRoutes()
            neighbourTable = Dictionary(
                snapshot.neighbours.map { ($0.key, $0) }.filter { isGateway($0.0) },
                uniquingKeysWith: { _, last in last })
            decisions = snapshot.decisions
        }
    }

    /// Applies events in order.
    public mutating func apply<Events: Sequence<KernelEvent>>(_ events: Events) {
        for event in events { apply(event) }
    }

    /// The state as a dump would show it, sorted so that equal states give equal snapshots.
    public var snapshot: KernelSnapshot {
        KernelSnapshot(
            links: links.values.sorted { $0.index < $1.index },
            addresses: addressTable.values.sorted {
                ($0.interfaceIndex, $0.address) < ($1.interfaceIndex, $1.address)
            },
            routes: (routes.filter { $0.nexthopID == nil } + nexthopRoutes).sorted(by: DefaultRoute.displayOrder),
            neighbours: neighbourTable.values.sorted {
                ($0.interfaceIndex, $0.address) < ($1.interfaceIndex, $1.address)
            },
            decisions: decisions,
            nexthops: nexthops
        )
    }

    /// The kernel's silent flush of a link's nexthops (down, no carrier, deleted).
    private mutating func flushNexthops(through index: Int32) {
        guard !nexthopTable.isEmpty else { return }
        removeNexthops(nexthopTable.ids(through: index))
    }

    /// Removes nexthops as the kernel does: out of their groups, and with the routes that named any that went.
    private mutating func removeNexthops(_ ids: Set<UInt32>) {
        let gone = nexthopTable.remove(ids)
        guard !gone.isEmpty else { return }
        nexthopRoutes = nexthopRoutes.filter { !gone.contains($0.nexthopID ?? 0) }
        resolveNexthopRoutes()
    }

    /// Replaces the resolved routes over nexthop objects with what the nexthops say now: one route per member.
    private mutating func resolveNexthopRoutes() {
        var resolved: Set<DefaultRoute> = []
        for route in nexthopRoutes {
            guard let id = route.nexthopID else { continue }
            let members = nexthopTable.members(of: id)
            for member in members {
                var hop = route
                hop.interfaceIndex = member.interfaceIndex
                hop.gateway = member.gateway
                hop.isMultipath = members.count > 1
                resolved.insert(hop)
            }
        }
        let direct = routes.filter { $0.nexthopID == nil }
        routes = resolved.isEmpty ? direct : direct.union(resolved)
    }
}
