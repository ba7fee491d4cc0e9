// SPDX-License-Identifier: Apache-2.0
/// Derives interface statuses and the path from a kernel state: a pure function. `PathTracker` runs it per
/// interface, for the interfaces a change touched; run whole, it is the from-scratch derivation the tests compare
/// the tracker's with.
public struct PathEvaluator: Sendable, Hashable {
    /// Decides each interface's kind and cost.
    public var classifier: Classifier

    public init(classifier: Classifier = Classifier()) {
        self.classifier = classifier
    }

    /// Every interface, loopback included, by index.
    public func interfaces(in state: KernelState, context: NetworkContext = NetworkContext()) -> [InterfaceStatus] {
        interfaces(in: state, context: context, kernel: KernelChoice(state))
    }

    /// Every interface as `user`'s packets see them (the kernel's choice asked with that uid); nil when that
    /// choice is the system's, so the system's statuses stand.
    public func interfaces(
        in state: KernelState, context: NetworkContext, user: UInt32
    ) -> [InterfaceStatus]? {
        let kernel = KernelChoice(state, user: user)
        guard kernel != KernelChoice(state) else { return nil }
        return interfaces(in: state, context: context, kernel: kernel)
    }

    private func interfaces(in state: KernelState, context: NetworkContext, kernel: KernelChoice) -> [InterfaceStatus] {
        Self.inheritingCarrierCost(
            ownStatuses(in: state, context: context, kernel: kernel), decisions: state.decisions)
    }

    /// Every interface's own status, by index, before tunnels inherit their carriers' cost: what `PathTracker`
    /// keeps, and derives again only for the interfaces a change touched.
    func ownStatuses(in state: KernelState, context: NetworkContext, kernel: KernelChoice) -> [InterfaceStatus] {
        state.links.values.sorted { $0.index < $1.index }.map {
            status(of: $0, in: state, context: context, kernel: kernel)
        }
    }

    /// The status of one link (as its own: a tunnel's inherits its carrier's cost only among all the interfaces).
    /// It reads the link, its addresses, its default routes, the neighbours of their gateways, the kernel's choice,
    /// the context's entries for its index, the policy and the classifier: the inputs docs/architecture.md lists.
    public func status(
        of link: Link, in state: KernelState, context: NetworkContext = NetworkContext()
    ) -> InterfaceStatus {
        status(of: link, in: state, context: context, kernel: KernelChoice(state))
    }

    /// `knownClass`: the link's class when the caller knows it for this link and this classifier (the tracker, for
    /// a link that did not change since it last derived it): classifying again ran the configuration's overrides
    /// and the kind's rules for every route or address change, 1,300 instructions (issue 41).
    ///
    /// `link` is consumed: the status keeps it, moved in rather than copied (the tracker hands over the link it
    /// read from the state for that alone).
    func status(
        of link: consuming Link, in state: KernelState, context: NetworkContext, kernel: KernelChoice,
        knownClass: InterfaceClass? = nil
    ) -> InterfaceStatus {
        let index = link.index
        // Sorted by address and prefix length as the state keeps them: its array itself, a retain.
        let addresses = state.addresses(of: link.index)
        // Mostly one route or none: the kept array itself then, a retain, where sorting made a new one.
        let through = state.routes(through: link.index)
        let routes = through.count > 1 ? through.sorted(by: DefaultRoute.displayOrder) : through
        let addressFamilies = AddressFamilies(addresses.lazy.filter(\.isUsable).map(\.family))
        let (routedFamilies, preferredFamilies) = kernel.routedFamilies(
            of: link.index, modelled: addressFamilies.intersection(AddressFamilies(routes.lazy.map(\.family))),
            addressed: addressFamilies)
        let readiness: InterfaceReadiness
        if !link.flags.contains(.up) {
            readiness = .down
        } else if !link.isRunning {
            readiness = .noCarrier
        } else if addressFamilies.isEmpty {
            readiness = .noAddress
        } else if routedFamilies.isEmpty {
            readiness = .noRoute
        } else {
            readiness = .usable
        }
        let interfaceClass = knownClass ?? classifier.classify(link)
        let identity = identity(of: link, kind: interfaceClass.kind, routes: routes, in: state, context: context)
        // The key is made once: a wired network's is the gateway's address lowercased, a new string each time.
        let key = identity?.key
        let policy = key.map { context.policy[$0] } ?? NetworkPolicy()
        // Roaming counts only on a cellular interface: a modem's registration says nothing of other links.
        let isRoaming = interfaceClass.kind == .cellular && context.roamingInterfaces.contains(link.index)
        let detectedBy: ExpensiveSource? =
            if isRoaming && classifier.roamingIsExpensive(link) {
                // Named before the class: on a cellular link it is the more telling reason, and it makes a link the
                // configuration calls not expensive (a flat-rate plan at home) expensive abroad.
                .roaming
            } else if interfaceClass.isExpensive {
                .interfaceClass
            } else if context.meteredInterfaces.contains(link.index) {
                .dhcpLease
            } else if context.networkManagerMetered.contains(link.index) {
                .networkManager
            } else {
                nil
            }
        // Made whole, then boxed once.
        var status = InterfaceStatus.Fields(
            link: consume link, interfaceClass: interfaceClass, readiness: readiness, addresses: addresses,
            routes: routes, supportedFamilies: readiness == .usable ? routedFamilies : [], identity: identity,
            isExpensive: policy.isExpensive ?? (detectedBy != nil),
            expensiveSource: policy.isExpensive != nil ? .user : detectedBy,
            isConstrained: policy.isConstrained ?? false
        )
        // The user's word on the network wins over the configuration's on the interface, as for expensive.
        status.isUltraConstrained =
            policy.isUltraConstrained ?? classifier.configuredUltraConstrained(status.link) ?? false
        if status.isUltraConstrained { status.isConstrained = true }
        status.isRoaming = isRoaming
        if let key, let limit = context.dataLimitStatus(of: key) { status.applyDataLimit(limit) }
        status.linkQuality = context.linkQualities[index]
        if let hint = context.captivePortals[index] {
            (status.captivePortal, status.captivePortalURI) = hint.resolved
            status.captivePortalAPI = hint.resolvedAPI
        }
        if readiness == .usable {
            status.kernelPreferredFamilies = preferredFamilies
            for family in preferredFamilies { status.kernelGateways[family] = kernel.nextHops[family] }
        }
        return InterfaceStatus(status)
    }

    /// The network a link is on: from an identity source (Wi-Fi, cellular) or, for wired links, the link-layer
    /// address of the gateway of its best default route, once the kernel has resolved it.
    func identity(
        of link: Link, kind: InterfaceKind, routes: [DefaultRoute], in state: KernelState, context: NetworkContext
    ) -> NetworkIdentity? {
        if let identity = context.identities[link.index] { return identity }
        if let identity = classifier.configuredIdentity(of: link) { return identity }
        guard kind == .wired else { return nil }
        // The routes read in place (a list of their gateways was an array per wired status).
        for route in routes {
            if let gateway = route.gateway, let neighbour = state.neighbour(gateway, on: link.index) {
                return .wired(gateway: neighbour.linkLayerAddress)
            }
        }
        return nil
    }

    /// The path for a client's parameters (the system path by default), as its routing user's packets go.
    public func path(
        in state: KernelState, context: NetworkContext = NetworkContext(),
        parameters: PathParameters = .system
    ) -> Path {
        let statuses =
            parameters.routingUser.flatMap { interfaces(in: state, context: context, user: $0) }
            ?? interfaces(in: state, context: context)
        return path(from: statuses, resolvers: context.resolvers, parameters: parameters)
    }

    /// The path from interface statuses already derived.
    public func path(
        from interfaces: [InterfaceStatus], resolvers: ResolverConfiguration = ResolverConfiguration(),
        parameters: PathParameters = .system
    ) -> Path {
        // A client that did not opt in does not see an ultra-constrained interface at all: the path, and the reason
        // it is unsatisfied, are what they would be without it (a reason older clients could not read would break
        // them, and they are the ones that never opt in).
        // Interfaces are picked by position, not copied: a status holds a dozen references, and copies of them were
        // a third of this function's instructions (so `isCandidate` takes a position too).
        func isCandidate(_ position: Int) -> Bool {
            interfaces[position].interfaceClass.kind != .loopback
                && (parameters.allowsUltraConstrained || !interfaces[position].isUltraConstrained)
        }
        let wanted = parameters.family.families
        var usable = interfaces.indices.filter { isCandidate($0) && interfaces[$0].readiness == .usable }
        guard !usable.isEmpty else {
            guard let furthest = interfaces.indices.lazy.filter(isCandidate).map({ interfaces[$0].readiness }).max()
            else {
                return .unsatisfied(.noInterfaces)
            }
            return .unsatisfied(Self.reason(furthest))
        }
        usable.sort { Self.preferred(interfaces[$0], interfaces[$1]) }
        let allowed = Self.narrow(
            Self.kernelFirst(usable, of: interfaces, families: wanted), of: interfaces, to: parameters)
        guard let first = allowed.positions.first else { return .unsatisfied(allowed.reason) }
        let available = allowed.positions
        let families = available.reduce(into: AddressFamilies()) { $0.formUnion(interfaces[$1].supportedFamilies) }
            .intersection(parameters.family.families)
        // Families iterate in their order (IPv4 first). Each family's gateways are those of the first interface
        // serving it; a gateway already named is not named again.
        var gateways: [IPAddress] = []
        for family in families {
            guard let position = available.first(where: { interfaces[$0].supportedFamilies.contains(family) }) else {
                continue
            }
            if let gateway = interfaces[position].kernelGateways[family] {
                if !gateways.contains(gateway) { gateways.append(gateway) }
                continue
            }
            for route in interfaces[position].routes where route.family == family {
                if let gateway = route.gateway, !gateways.contains(gateway) { gateways.append(gateway) }
            }
        }
        // Per family, the interface its traffic leaves by: the kernel's pick when the kernel was asked (and the
        // parameters allow it), else the first available interface serving the family.
        // In family order (IPv4 first), so that which carrier speaks for the path (its portal's URI) does not depend
        // on a set's iteration order.
        let carriers = families.compactMap { family in
            available.first { interfaces[$0].kernelPreferredFamilies.contains(family) }
                ?? available.first { interfaces[$0].supportedFamilies.contains(family) }
        }
        func anyCarrier(_ holds: (InterfaceStatus) -> Bool) -> Bool { carriers.contains { holds(interfaces[$0]) } }
        var path = Path(
            status: .satisfied,
            availableInterfaces: available.map { PathInterface(interfaces[$0]) },
            // Costly when any family's traffic leaves by a costly interface: with IPv4 over cellular and IPv6 over
            // wired, every IPv4 packet is metered, whatever the primary. The primary carries a family, so it counts.
            isExpensive: anyCarrier { $0.isExpensive },
            isConstrained: anyCarrier { $0.isConstrained },
            supportsIPv4: families.contains(.ipv4),
            supportsIPv6: families.contains(.ipv6),
            supportsDNS: resolvers.supportsDNS(over: available.lazy.map { interfaces[$0].link.index }),
            gateways: gateways,
            isUltraConstrained: anyCarrier { $0.isUltraConstrained },
            isRoaming: anyCarrier { $0.isRoaming }
        )
        let portal = carriers.first { interfaces[$0].captivePortal == .captive } ?? first
        path.captivePortal = interfaces[portal].captivePortal
        path.captivePortalURI = interfaces[portal].captivePortalURI
        path.captivePortalAPI = interfaces[portal].captivePortalAPI
        // The preferred interface's, as Apple's: the link the first connection attempt takes.
        path.linkQuality = interfaces[first].linkQuality
        path.dataLimit = interfaces[first].dataLimit
        return path
    }

    /// Whether the path for `parameters` from these interfaces is the system path (`.system`'s): for `.system`,
    /// and for the system's routing without requirements while no interface is ultra-constrained (the opt-in to
    /// such interfaces is all that sets `.unrestricted` apart). A client that sends no requirements, the commonest,
    /// then costs no evaluation of its own.
    public static func sharesSystemPath(_ parameters: PathParameters, interfaces: [InterfaceStatus]) -> Bool {
        if parameters == .system { return true }
        var widened = parameters
        widened.allowsUltraConstrained = true
        return widened == .system && unrestrictedSharesSystemPath(interfaces: interfaces)
    }

    /// `sharesSystemPath(.unrestricted, interfaces:)`, known without comparing parameters: `.unrestricted` is
    /// `.system` but for the opt-in (which the tests check). The hub asks it once per update, and the copies and
    /// comparisons of the parameters, a set and a string among them, cost 500 instructions.
    public static func unrestrictedSharesSystemPath(interfaces: [InterfaceStatus]) -> Bool {
        !interfaces.contains { $0.isUltraConstrained }
    }

    /// When the kernel was not asked: an interface holding a split default (a VPN's 0/1 and 128/1) first, which the
    /// longest match favours. Then wired before Wi-Fi before cellular before other; within a kind, the lower route
    /// metric; then the index.
    static func preferred(_ lhs: InterfaceStatus, _ rhs: InterfaceStatus) -> Bool {
        (lhs.carriesSplitDefault ? 0 : 1, lhs.interfaceClass.kind.preferenceRank, lhs.bestMetric, lhs.link.index)
            < (rhs.carriesSplitDefault ? 0 : 1, rhs.interfaceClass.kind.preferenceRank, rhs.bestMetric, rhs.link.index)
    }

    /// The documented order, changed only where the kernel disagrees: for each wanted family, the interface the
    /// kernel sends that family's internet traffic through moves ahead of every interface that routes the family,
    /// so it is the first of them (whatever kinds, metrics or tunnels say). IPv4 is settled last: when the two
    /// families' picks contend for the very first place, IPv4's takes it. `ordered` and the result are positions in
    /// `interfaces`.
    static func kernelFirst(
        _ ordered: [Int], of interfaces: [InterfaceStatus], families: AddressFamilies
    ) -> [Int] {
        var result = ordered
        for family in [AddressFamily.ipv6, .ipv4] where families.contains(family) {
            guard let pick = result.firstIndex(where: { interfaces[$0].kernelPreferredFamilies.contains(family) }),
                let first = result.firstIndex(where: { interfaces[$0].supportedFamilies.contains(family) }),
                first < pick
            else { continue }
            result.insert(result.remove(at: pick), at: first)
        }
        return result
    }

    static func reason(_ furthest: InterfaceReadiness) -> UnsatisfiedReason {
        switch furthest {
        case .down: return .interfacesDown
        case .noCarrier: return .noCarrier
        case .noAddress: return .noAddress
        case .noRoute, .usable: return .noDefaultRoute
        }
    }
}

extension PathInterface {
    /// What a path tells of one of its interfaces: made whole before the path holds it (changed inside the path,
    /// the interfaces' array would be copied out of the path's box and back for each field set).
    fileprivate init(_ status: borrowing InterfaceStatus) {
        self.init(
            index: status.link.index, name: status.link.name, kind: status.interfaceClass.kind,
            isExpensive: status.isExpensive, isConstrained: status.isConstrained, isTunnel: status.isTunnel,
            isUltraConstrained: status.isUltraConstrained, isRoaming: status.isRoaming)
        captivePortal = status.captivePortal
        linkQuality = status.linkQuality
        dataLimit = status.dataLimit
    }
}
