// SPDX-License-Identifier: Apache-2.0
/// How far one interface is from carrying traffic to the internet, with the facts behind it.
///
/// A value, held in a box that its copies share until one of them changes (copy on write): a status is 430 bytes
/// and a dozen references, and a route flip copied its interface's five times as it was derived, compared, stored
/// and evaluated into the path, 3,400 instructions of copies and releases (issue 41). A copy is now one reference.
public struct InterfaceStatus: Sendable, Hashable {
    /// The link as the kernel reports it.
    public var link: Link {
        @inlinable get { storage.fields.link }
        set { fields.link = newValue }
    }
    /// Its kind and cost.
    public var interfaceClass: InterfaceClass {
        @inlinable get { storage.fields.interfaceClass }
        set { fields.interfaceClass = newValue }
    }
    /// The furthest stage it has reached.
    public var readiness: InterfaceReadiness {
        @inlinable get { storage.fields.readiness }
        set { fields.readiness = newValue }
    }
    /// Its addresses, sorted.
    public var addresses: [InterfaceAddress] {
        @inlinable get { storage.fields.addresses }
        set { fields.addresses = newValue }
    }
    /// The default routes out of it, lowest metric first.
    public var routes: [DefaultRoute] {
        @inlinable get { storage.fields.routes }
        set { fields.routes = newValue }
    }
    /// The families it can route to the internet: a usable address and a default route of that family.
    public var supportedFamilies: AddressFamilies {
        @inlinable get { storage.fields.supportedFamilies }
        set { fields.supportedFamilies = newValue }
    }
    /// The network it is attached to, when known.
    public var identity: NetworkIdentity? {
        @inlinable get { storage.fields.identity }
        set { fields.identity = newValue }
    }
    /// Expensive after detection and the user's policy (the policy wins).
    public var isExpensive: Bool {
        @inlinable get { storage.fields.isExpensive }
        set { fields.isExpensive = newValue }
    }
    /// What decided `isExpensive`; nil when nothing called it expensive and the user set nothing.
    public var expensiveSource: ExpensiveSource? {
        @inlinable get { storage.fields.expensiveSource }
        set { fields.expensiveSource = newValue }
    }
    /// In Low Data Mode: the user marked its network constrained (or, for a tunnel, its carrier's network).
    public var isConstrained: Bool {
        @inlinable get { storage.fields.isConstrained }
        set { fields.isConstrained = newValue }
    }
    /// Ultra-constrained (the user's policy or the configuration, or for a tunnel its carrier's): also constrained,
    /// and hidden from the path of a client that did not opt in (`PathParameters.allowsUltraConstrained`).
    public var isUltraConstrained: Bool {
        @inlinable get { storage.fields.isUltraConstrained }
        set { fields.isUltraConstrained = newValue }
    }
    /// A cellular interface whose modem is registered roaming (or, for a tunnel, riding on one).
    public var isRoaming: Bool {
        @inlinable get { storage.fields.isRoaming }
        set { fields.isRoaming = newValue }
    }
    /// Whether its network holds traffic at a captive portal (or, for a tunnel, its carrier's does).
    public var captivePortal: CaptivePortal {
        @inlinable get { storage.fields.captivePortal }
        set { fields.captivePortal = newValue }
    }
    /// The portal's API URI (RFC 8910) its network announced, when it did.
    public var captivePortalURI: String? {
        @inlinable get { storage.fields.captivePortalURI }
        set { fields.captivePortalURI = newValue }
    }
    /// What the portal's API answered (RFC 8908), when pathmond checked it (`[captive-portal] check-api`).
    public var captivePortalAPI: CaptivePortalAPIStatus? {
        @inlinable get { storage.fields.captivePortalAPI }
        set { fields.captivePortalAPI = newValue }
    }
    /// Its link's figures and grade, when its source gave any.
    public var linkQuality: LinkQuality? {
        @inlinable get { storage.fields.linkQuality }
        set { fields.linkQuality = newValue }
    }
    /// Where its network stands against the plan's data limit the user set (`pathctl set-limit`); nil without one.
    /// Past the warning it made the interface constrained, past the limit also expensive.
    public var dataLimit: DataLimitStatus? {
        @inlinable get { storage.fields.dataLimit }
        set { fields.dataLimit = newValue }
    }
    /// The families whose traffic to the internet the kernel's own routing decision sends through it (rules,
    /// tables, nexthops and all); empty when the kernel picks another interface or was not asked.
    public var kernelPreferredFamilies: AddressFamilies {
        @inlinable get { storage.fields.kernelPreferredFamilies }
        set { fields.kernelPreferredFamilies = newValue }
    }
    /// The next hops the kernel's decision uses through it, by family (nil for on-link routes, and for the families
    /// it is not preferred for).
    public var kernelGateways: PerFamily<IPAddress?> {
        @inlinable get { storage.fields.kernelGateways }
        set { fields.kernelGateways = newValue }
    }
    /// For a tunnel, the interface that carries its own packets (the kernel's route to its endpoint), whose
    /// expensive and constrained it inherits; nil for other interfaces or when none is known.
    public var carrier: Int32? {
        @inlinable get { storage.fields.carrier }
        set { fields.carrier = newValue }
    }

    /// The fields, as the box holds them.
    @usableFromInline struct Fields: Sendable, Hashable {
        @usableFromInline var link: Link
        @usableFromInline var interfaceClass: InterfaceClass
        @usableFromInline var readiness: InterfaceReadiness
        @usableFromInline var addresses: [InterfaceAddress]
        @usableFromInline var routes: [DefaultRoute]
        @usableFromInline var supportedFamilies: AddressFamilies
        @usableFromInline var identity: NetworkIdentity?
        @usableFromInline var isExpensive: Bool
        @usableFromInline var expensiveSource: ExpensiveSource?
        @usableFromInline var isConstrained: Bool
        @usableFromInline var isUltraConstrained: Bool = false
        @usableFromInline var isRoaming: Bool = false
        @usableFromInline var captivePortal: CaptivePortal = CaptivePortal.unknown
        @usableFromInline var captivePortalURI: String?
        @usableFromInline var captivePortalAPI: CaptivePortalAPIStatus?
        @usableFromInline var linkQuality: LinkQuality?
        @usableFromInline var dataLimit: DataLimitStatus?
        @usableFromInline var kernelPreferredFamilies: AddressFamilies = []
        @usableFromInline var kernelGateways: PerFamily<IPAddress?> = PerFamily<IPAddress?>(nil)
        @usableFromInline var carrier: Int32?
    }

    /// The box, never changed: a change to a status boxes its fields anew (`fields`). Its fields are a constant so
    /// that reading one borrows it in place; a variable's were copied out whole, all 430 bytes, to read one.
    @usableFromInline final class Storage: Sendable {
        @usableFromInline let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    @usableFromInline private(set) var storage: Storage

    /// A status of fields made whole (what the evaluator derives: boxed once, not once per field it sets).
    init(_ fields: Fields) { storage = Storage(fields) }

    /// The fields, boxed anew when changed. Statuses change rarely after they are made (a tunnel inheriting its
    /// carrier's cost, a test), so that copy is the price of reading in place.
    private var fields: Fields {
        get { storage.fields }
        set { storage = Storage(newValue) }
    }

    /// Equal when they share a box (a status kept and compared with itself, the commonest case), else field by field.
    public static func == (lhs: InterfaceStatus, rhs: InterfaceStatus) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(storage.fields) }

    public init(
        link: Link, interfaceClass: InterfaceClass, readiness: InterfaceReadiness, addresses: [InterfaceAddress],
        routes: [DefaultRoute], supportedFamilies: AddressFamilies, identity: NetworkIdentity? = nil,
        isExpensive: Bool? = nil, expensiveSource: ExpensiveSource? = nil, isConstrained: Bool = false
    ) {
        storage = Storage(
            Fields(
                link: link, interfaceClass: interfaceClass, readiness: readiness, addresses: addresses, routes: routes,
                supportedFamilies: supportedFamilies, identity: identity,
                isExpensive: isExpensive ?? interfaceClass.isExpensive,
                expensiveSource: expensiveSource
                    ?? (isExpensive == nil && interfaceClass.isExpensive ? .interfaceClass : nil),
                isConstrained: isConstrained))
    }

    /// A VPN or tunnel (WireGuard, tun/tap, PPP, GRE/IPIP/SIT, XFRM): its traffic rides on another interface.
    public var isTunnel: Bool { link.isTunnel }

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
