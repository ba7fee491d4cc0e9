// SPDX-License-Identifier: Apache-2.0
/// The system's network path: whether traffic can leave the machine, over which interfaces, and at what cost.
/// The names follow Network.framework's NWPath.
public struct Path: Sendable, Hashable {
    /// The fields, shared by the copies until one of them is changed: a path goes by copy from the tracker to the
    /// hub's interests, the history, the log and the replies, and field by field (its arrays and strings) each
    /// copy cost a path change 145 instructions, and 100 to destroy (issue 41). Its own box, as `Link`'s.
    private var storage: Storage

    /// `@unchecked Sendable`: a box is changed only while one value alone holds it (`mutableStorage`), so a box
    /// that two values, or two threads, can reach is never written.
    private final class Storage: @unchecked Sendable {
        var status: PathStatus
        var unsatisfiedReason: UnsatisfiedReason?
        var availableInterfaces: [PathInterface]
        var isExpensive: Bool
        var isConstrained: Bool
        var isUltraConstrained: Bool
        var isRoaming: Bool
        var captivePortal: CaptivePortal
        var captivePortalURI: String?
        var captivePortalAPI: CaptivePortalAPIStatus?
        var linkQuality: LinkQuality?
        var dataLimit: DataLimitStatus?
        var supportsIPv4: Bool
        var supportsIPv6: Bool
        var supportsDNS: Bool
        var gateways: [IPAddress]

        init(
            status: PathStatus, unsatisfiedReason: UnsatisfiedReason?, availableInterfaces: [PathInterface],
            isExpensive: Bool, isConstrained: Bool, isUltraConstrained: Bool, isRoaming: Bool,
            captivePortal: CaptivePortal, captivePortalURI: String?, captivePortalAPI: CaptivePortalAPIStatus?,
            linkQuality: LinkQuality?, dataLimit: DataLimitStatus?, supportsIPv4: Bool, supportsIPv6: Bool,
            supportsDNS: Bool, gateways: [IPAddress]
        ) {
            self.status = status
            self.unsatisfiedReason = unsatisfiedReason
            self.availableInterfaces = availableInterfaces
            self.isExpensive = isExpensive
            self.isConstrained = isConstrained
            self.isUltraConstrained = isUltraConstrained
            self.isRoaming = isRoaming
            self.captivePortal = captivePortal
            self.captivePortalURI = captivePortalURI
            self.captivePortalAPI = captivePortalAPI
            self.linkQuality = linkQuality
            self.dataLimit = dataLimit
            self.supportsIPv4 = supportsIPv4
            self.supportsIPv6 = supportsIPv6
            self.supportsDNS = supportsDNS
            self.gateways = gateways
        }

        func copy() -> Storage {
            Storage(
                status: status, unsatisfiedReason: unsatisfiedReason, availableInterfaces: availableInterfaces,
                isExpensive: isExpensive, isConstrained: isConstrained, isUltraConstrained: isUltraConstrained,
                isRoaming: isRoaming, captivePortal: captivePortal, captivePortalURI: captivePortalURI,
                captivePortalAPI: captivePortalAPI, linkQuality: linkQuality, dataLimit: dataLimit,
                supportsIPv4: supportsIPv4, supportsIPv6: supportsIPv6, supportsDNS: supportsDNS, gateways: gateways)
        }

        func hasFields(of other: Storage) -> Bool {
            status == other.status && unsatisfiedReason == other.unsatisfiedReason
                && availableInterfaces == other.availableInterfaces && isExpensive == other.isExpensive
                && isConstrained == other.isConstrained && isUltraConstrained == other.isUltraConstrained
                && isRoaming == other.isRoaming && captivePortal == other.captivePortal
                && captivePortalURI == other.captivePortalURI && captivePortalAPI == other.captivePortalAPI
                && linkQuality == other.linkQuality && dataLimit == other.dataLimit
                && supportsIPv4 == other.supportsIPv4 && supportsIPv6 == other.supportsIPv6
                && supportsDNS == other.supportsDNS && gateways == other.gateways
        }
    }

    /// The box, made this value's own before it is written.
    private var mutableStorage: Storage {
        mutating get {
            if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
            return storage
        }
    }

    /// Satisfied when at least one interface can carry traffic to the internet.
    public var status: PathStatus {
        get { storage.status }
        set { mutableStorage.status = newValue }
    }
    /// Why the path is unsatisfied; nil when it is satisfied.
    public var unsatisfiedReason: UnsatisfiedReason? {
        get { storage.unsatisfiedReason }
        set { mutableStorage.unsatisfiedReason = newValue }
    }
    /// The usable interfaces, most preferred first.
    public var availableInterfaces: [PathInterface] {
        get { storage.availableInterfaces }
        set { mutableStorage.availableInterfaces = newValue }
    }
    /// Traffic of some IP version leaves by an expensive interface (cellular, tethering, or marked so): the
    /// preferred interface, or the one another family's default route uses (IPv4 over cellular while IPv6 goes
    /// over wired). As Network.framework puts it, the path uses an interface that is considered expensive.
    public var isExpensive: Bool {
        get { storage.isExpensive }
        set { mutableStorage.isExpensive = newValue }
    }
    /// Traffic of some IP version leaves by an interface whose network is in Low Data Mode (the same rule).
    public var isConstrained: Bool {
        get { storage.isConstrained }
        set { mutableStorage.isConstrained = newValue }
    }
    /// Traffic of some IP version leaves by an ultra-constrained interface (the same rule); such a path is also
    /// constrained, and only a client that opted in (`PathParameters.allowsUltraConstrained`) is given one.
    public var isUltraConstrained: Bool {
        get { storage.isUltraConstrained }
        set { mutableStorage.isUltraConstrained = newValue }
    }
    /// Traffic of some IP version leaves by a roaming interface (the same rule). As Android's NOT_ROAMING: a client
    /// that must not roam sets `PathParameters.prohibitsRoaming`.
    public var isRoaming: Bool {
        get { storage.isRoaming }
        set { mutableStorage.isRoaming = newValue }
    }
    /// Captive when some IP version's traffic leaves by an interface held at a captive portal (the same rule);
    /// otherwise open when the preferred interface's network is known to be open; otherwise unknown.
    public var captivePortal: CaptivePortal {
        get { storage.captivePortal }
        set { mutableStorage.captivePortal = newValue }
    }
    /// The portal API URI (RFC 8910) of the interface that decided `captivePortal`, or of the preferred one.
    public var captivePortalURI: String? {
        get { storage.captivePortalURI }
        set { mutableStorage.captivePortalURI = newValue }
    }
    /// What that interface's portal API answered (RFC 8908): the session's remaining time and bytes, the sign-in
    /// page; nil unless pathmond was configured to check the API and it answered.
    public var captivePortalAPI: CaptivePortalAPIStatus? {
        get { storage.captivePortalAPI }
        set { mutableStorage.captivePortalAPI = newValue }
    }
    /// The preferred interface's link figures (nil: none measured); `linkQualityGrade` grades them.
    public var linkQuality: LinkQuality? {
        get { storage.linkQuality }
        set { mutableStorage.linkQuality = newValue }
    }
    /// Where the preferred interface's network stands against its data limit (`pathctl set-limit`); nil without one.
    public var dataLimit: DataLimitStatus? {
        get { storage.dataLimit }
        set { mutableStorage.dataLimit = newValue }
    }
    /// Some usable interface has a usable IPv4 address and an IPv4 default route.
    public var supportsIPv4: Bool {
        get { storage.supportsIPv4 }
        set { mutableStorage.supportsIPv4 = newValue }
    }
    /// Some usable interface has a usable IPv6 address and an IPv6 default route.
    public var supportsIPv6: Bool {
        get { storage.supportsIPv6 }
        set { mutableStorage.supportsIPv6 = newValue }
    }
    /// A DNS server is configured for the path: globally in the resolver configuration, or on one of its links.
    public var supportsDNS: Bool {
        get { storage.supportsDNS }
        set { mutableStorage.supportsDNS = newValue }
    }
    /// The next-hop routers the path uses: per family, those of the first available interface serving it.
    public var gateways: [IPAddress] {
        get { storage.gateways }
        set { mutableStorage.gateways = newValue }
    }

    public init(
        status: PathStatus, unsatisfiedReason: UnsatisfiedReason? = nil, availableInterfaces: [PathInterface] = [],
        isExpensive: Bool = false, isConstrained: Bool = false, supportsIPv4: Bool = false,
        supportsIPv6: Bool = false, supportsDNS: Bool = false, gateways: [IPAddress] = [],
        isUltraConstrained: Bool = false, isRoaming: Bool = false
    ) {
        storage = Storage(
            status: status, unsatisfiedReason: unsatisfiedReason, availableInterfaces: availableInterfaces,
            isExpensive: isExpensive, isConstrained: isConstrained, isUltraConstrained: isUltraConstrained,
            isRoaming: isRoaming, captivePortal: .unknown, captivePortalURI: nil, captivePortalAPI: nil,
            linkQuality: nil, dataLimit: nil, supportsIPv4: supportsIPv4, supportsIPv6: supportsIPv6,
            supportsDNS: supportsDNS, gateways: gateways)
    }

    /// An unsatisfied path with nothing available.
    public static func unsatisfied(_ reason: UnsatisfiedReason) -> Path {
        Path(status: .unsatisfied, unsatisfiedReason: reason)
    }

    /// Copies that still share their box are equal without a look at a field.
    public static func == (lhs: Path, rhs: Path) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.hasFields(of: rhs.storage)
    }

    public func hash(into hasher: inout Hasher) {
        let fields = storage
        hasher.combine(fields.status)
        hasher.combine(fields.unsatisfiedReason)
        hasher.combine(fields.availableInterfaces)
        hasher.combine(fields.isExpensive)
        hasher.combine(fields.isConstrained)
        hasher.combine(fields.isUltraConstrained)
        hasher.combine(fields.isRoaming)
        hasher.combine(fields.captivePortal)
        hasher.combine(fields.captivePortalURI)
        hasher.combine(fields.captivePortalAPI)
        hasher.combine(fields.linkQuality)
        hasher.combine(fields.dataLimit)
        hasher.combine(fields.supportsIPv4)
        hasher.combine(fields.supportsIPv6)
        hasher.combine(fields.supportsDNS)
        hasher.combine(fields.gateways)
    }
}

/// Whether a path can be used.
public enum PathStatus: String, Sendable, HashedByCase, CaseIterable {
    /// Traffic can leave the machine.
    case satisfied
    /// No interface can carry traffic; `unsatisfiedReason` says why.
    case unsatisfied
}

/// Why no interface is usable, named after the furthest any interface got towards being usable.
public enum UnsatisfiedReason: String, Sendable, HashedByCase, CaseIterable {
    /// No interface other than loopback exists.
    case noInterfaces
    /// Every interface is administratively down.
    case interfacesDown
    /// Interfaces are up but none has carrier (cable out, not associated, peer gone).
    case noCarrier
    /// Links are running but none has a usable (global, non-tentative) address.
    case noAddress
    /// Addresses exist but no default route leaves through an interface that has one.
    case noDefaultRoute
    /// Interfaces are usable, but none of a kind or name the parameters allow: wait for one, or relax them.
    case onlyProhibitedInterfaces
    /// Usable interfaces of allowed kinds exist, but none routes the IP version the parameters require.
    case familyUnavailable
    /// Only expensive interfaces are usable and the parameters prohibit expensive ones.
    case onlyExpensiveInterfaces
    /// Only interfaces on Low Data Mode networks are usable and the parameters prohibit constrained ones.
    case onlyConstrainedInterfaces
    /// Only roaming interfaces are usable and the parameters prohibit roaming (only a client that set
    /// `prohibitsRoaming`, so knows of roaming, is given this reason).
    case onlyRoamingInterfaces
}

/// One usable interface of a path.
public struct PathInterface: Sendable, Hashable {
    /// The kernel's interface index.
    public var index: Int32
    /// The interface name.
    public var name: String
    /// Wired, Wi-Fi, cellular or other.
    public var kind: InterfaceKind
    /// Traffic over it is expensive.
    public var isExpensive: Bool
    /// Its network is in Low Data Mode.
    public var isConstrained: Bool
    /// It is ultra-constrained (and so also constrained).
    public var isUltraConstrained = false
    /// Its modem is registered roaming (or, for a tunnel, its carrier's).
    public var isRoaming = false
    /// Whether its network holds traffic at a captive portal.
    public var captivePortal = CaptivePortal.unknown
    /// Its link's figures and grade, when measured.
    public var linkQuality: LinkQuality?
    /// Where its network stands against its data limit; nil without one.
    public var dataLimit: DataLimitStatus?
    /// A VPN or tunnel (WireGuard, tun/tap, PPP, GRE/IPIP/SIT, XFRM); its cost is its carrier's.
    public var isTunnel: Bool

    public init(
        index: Int32, name: String, kind: InterfaceKind, isExpensive: Bool, isConstrained: Bool = false,
        isTunnel: Bool = false, isUltraConstrained: Bool = false, isRoaming: Bool = false
    ) {
        self.isUltraConstrained = isUltraConstrained
        self.isRoaming = isRoaming
        self.index = index
        self.name = name
        self.kind = kind
        self.isExpensive = isExpensive
        self.isConstrained = isConstrained
        self.isTunnel = isTunnel
    }
}

extension Path {
    /// The grade of the preferred interface's link; unknown when nothing was measured.
    public var linkQualityGrade: LinkQualityGrade { linkQuality?.grade ?? .unknown }
}
