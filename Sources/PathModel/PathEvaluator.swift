/// Derives interface statuses and the path from a kernel state: a pure function, run from scratch on every
/// change (the state holds only links, addresses and default routes, so this is cheap).
public struct PathEvaluator: Sendable, Hashable {
    /// Decides each interface's kind and cost.
    public var classifier: Classifier

    public init(classifier: Classifier = Classifier()) {
        self.classifier = classifier
    }

    /// Every interface, loopback included, by index.
    public func interfaces(in state: KernelState) -> [InterfaceStatus] {
        state.links.values.sorted { $0.index < $1.index }.map { status(of: $0, in: state) }
    }

    /// The status of one link.
    public func status(of link: Link, in state: KernelState) -> InterfaceStatus {
        let addresses = state.addresses(of: link.index).sorted { $0.address < $1.address }
        let routes = state.routes(through: link.index).sorted(by: DefaultRoute.displayOrder)
        let addressFamilies = Set(addresses.filter(\.isUsable).map(\.family))
        let routedFamilies = addressFamilies.intersection(routes.map(\.family))
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
        return InterfaceStatus(
            link: link, interfaceClass: classifier.classify(link), readiness: readiness, addresses: addresses,
            routes: routes, supportedFamilies: readiness == .usable ? routedFamilies : []
        )
    }

    /// The system path.
    public func path(in state: KernelState) -> Path {
        path(from: interfaces(in: state))
    }

    /// The system path from interface statuses already derived.
    public func path(from interfaces: [InterfaceStatus]) -> Path {
        let candidates = interfaces.filter { $0.interfaceClass.kind != .loopback }
        let available = candidates.filter { $0.readiness == .usable }.sorted(by: Self.preferred)
        guard let primary = available.first else {
            guard let furthest = candidates.map(\.readiness).max() else { return .unsatisfied(.noInterfaces) }
            return .unsatisfied(Self.reason(furthest))
        }
        let families = available.reduce(into: Set<AddressFamily>()) { $0.formUnion($1.supportedFamilies) }
        let gateways = AddressFamily.allCases.flatMap { family in
            available.first { $0.supportedFamilies.contains(family) }.map { status in
                status.routes.filter { $0.family == family }.compactMap(\.gateway)
            } ?? []
        }
        return Path(
            status: .satisfied,
            availableInterfaces: available.map {
                PathInterface(
                    index: $0.link.index, name: $0.link.name, kind: $0.interfaceClass.kind,
                    isExpensive: $0.interfaceClass.isExpensive)
            },
            isExpensive: primary.interfaceClass.isExpensive,
            supportsIPv4: families.contains(.ipv4),
            supportsIPv6: families.contains(.ipv6),
            gateways: uniqued(gateways)
        )
    }

    /// Wired before Wi-Fi before cellular before other; within a kind, the lower route metric; then the index.
    static func preferred(_ lhs: InterfaceStatus, _ rhs: InterfaceStatus) -> Bool {
        (lhs.interfaceClass.kind.preferenceRank, lhs.bestMetric, lhs.link.index)
            < (rhs.interfaceClass.kind.preferenceRank, rhs.bestMetric, rhs.link.index)
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

private func uniqued<Element: Hashable>(_ elements: [Element]) -> [Element] {
    var seen = Set<Element>()
    return elements.filter { seen.insert($0).inserted }
}
