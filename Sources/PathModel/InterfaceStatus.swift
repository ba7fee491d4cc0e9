// SPDX-License-Identifier: Apache-2.0
/// How far one interface is from carrying traffic to the internet, with the facts behind it.
public struct InterfaceStatus: Sendable, Hashable {
    /// The link as the kernel reports it.
    public var link: Link
    /// Its kind and cost.
    public var interfaceClass: InterfaceClass
    /// The furthest stage it has reached.
    public var readiness: InterfaceReadiness
    /// Its addresses, sorted.
    public var addresses: [InterfaceAddress]
    /// The default routes out of it, lowest metric first.
    public var routes: [DefaultRoute]
    /// The families it can route to the internet: a usable address and a default route of that family.
    public var supportedFamilies: AddressFamilies
    /// The network it is attached to, when known.
    public var identity: NetworkIdentity?
    /// Expensive after detection and the user's policy (the policy wins).
    public var isExpensive: Bool
    /// What decided `isExpensive`; nil when nothing called it expensive and the user set nothing.
    public var expensiveSource: ExpensiveSource?
    /// In Low Data Mode: the user marked its network constrained (or, for a tunnel, its carrier's network).
    public var isConstrained: Bool
    /// Ultra-constrained (the user's policy or the configuration, or for a tunnel its carrier's): also constrained,
    /// and hidden from the path of a client that did not opt in (`PathParameters.allowsUltraConstrained`).
    public var isUltraConstrained = false
    /// A cellular interface whose modem is registered roaming (or, for a tunnel, riding on one).
    public var isRoaming = false
    /// Whether its network holds traffic at a captive portal (or, for a tunnel, its carrier's does).
    public var captivePortal = CaptivePortal.unknown
    /// The portal's API URI (RFC 8910) its network announced, when it did.
    public var captivePortalURI: String?
    /// What the portal's API answered (RFC 8908), when pathmond checked it (`[captive-portal] check-api`).
    public var captivePortalAPI: CaptivePortalAPIStatus?
    /// Its link's figures and grade, when its source gave any.
    public var linkQuality: LinkQuality?
    /// Where its network stands against the plan's data limit the user set (`pathctl set-limit`); nil without one.
    /// Past the warning it made the interface constrained, past the limit also expensive.
    public var dataLimit: DataLimitStatus?
    /// The families whose traffic to the internet the kernel's own routing decision sends through it (rules,
    /// tables, nexthops and all); empty when the kernel picks another interface or was not asked.
    public var kernelPreferredFamilies: AddressFamilies = []
    /// The next hops the kernel's decision uses through it, by family (nil for on-link routes, and for the families
    /// it is not preferred for).
    public var kernelGateways = PerFamily<IPAddress?>(nil)
    /// For a tunnel, the interface that carries its own packets (the kernel's route to its endpoint), whose
    /// expensive and constrained it inherits; nil for other interfaces or when none is known.
    public var carrier: Int32?

    public init(
        link: Link, interfaceClass: InterfaceClass, readiness: InterfaceReadiness, addresses: [InterfaceAddress],
        routes: [DefaultRoute], supportedFamilies: AddressFamilies, identity: NetworkIdentity? = nil,
        isExpensive: Bool? = nil, expensiveSource: ExpensiveSource? = nil, isConstrained: Bool = false
    ) {
        self.link = link
        self.interfaceClass = interfaceClass
        self.readiness = readiness
        self.addresses = addresses
        self.routes = routes
        self.supportedFamilies = supportedFamilies
        self.identity = identity
        self.isExpensive = isExpensive ?? interfaceClass.isExpensive
        self.expensiveSource =
            expensiveSource ?? (isExpensive == nil && interfaceClass.isExpensive ? .interfaceClass : nil)
        self.isConstrained = isConstrained
    }

    /// A VPN or tunnel (WireGuard, tun/tap, PPP, GRE/IPIP/SIT, XFRM): its traffic rides on another interface.
    public var isTunnel: Bool { Classification.isTunnel(link) }

    /// The lowest metric among its default routes: what orders interfaces of one kind.
    public var bestMetric: UInt32 { routes.map(\.metric).min() ?? .max }

    /// It holds half of a split default route (0.0.0.0/1, ::/1 ...) of a family it can route: a VPN that takes all
    /// traffic by the longest match, whatever the metrics of the plain default routes.
    public var carriesSplitDefault: Bool {
        routes.contains { $0.prefixLength > 0 && supportedFamilies.contains($0.family) }
    }
}

/// The stages an interface goes through on its way to being usable, in order.
public enum InterfaceReadiness: Int, Sendable, Hashable, CaseIterable, Comparable {
    /// Administratively down.
    case down
    /// Up, but not running: no carrier, not associated, or dormant.
    case noCarrier
    /// Running, but no usable address.
    case noAddress
    /// Has a usable address, but no default route of that family leaves through it.
    case noRoute
    /// Can carry traffic to the internet.
    case usable

    /// The spelling used in JSON and the CLI.
    public var name: String {
        switch self {
        case .down: return "down"
        case .noCarrier: return "no-carrier"
        case .noAddress: return "no-address"
        case .noRoute: return "no-route"
        case .usable: return "usable"
        }
    }

    public static func < (lhs: InterfaceReadiness, rhs: InterfaceReadiness) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
