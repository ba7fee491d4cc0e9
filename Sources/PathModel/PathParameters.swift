// SPDX-License-Identifier: Apache-2.0
/// What a client may use, as NWParameters say it: the path it watches is the system's, narrowed to these.
public struct PathParameters: Sendable, Hashable {
    /// Only interfaces of this kind may carry the traffic.
    public var requiredInterfaceKind: InterfaceKind?
    /// Interfaces of these kinds may not.
    public var prohibitedInterfaceKinds: Set<InterfaceKind>
    /// Only the interface of this name may.
    public var requiredInterfaceName: String?
    /// Expensive interfaces (cellular, tethering, marked) may not.
    public var prohibitsExpensive: Bool
    /// Interfaces on a network in Low Data Mode may not.
    public var prohibitsConstrained: Bool
    /// The IP version the traffic needs.
    public var family: FamilyRequirement
    /// Ultra-constrained interfaces (satellite) may carry the traffic. Off by default, as Apple's
    /// `allowUltraConstrainedPaths` and Android's bandwidth-constrained opt-in are: a client that did not ask is not
    /// shown such an interface at all, since an app written for ordinary links would swamp one.
    public var allowsUltraConstrained: Bool
    /// Roaming interfaces may not (Android's and WorkManager's NOT_ROAMING).
    public var prohibitsRoaming: Bool
    /// Whose routing the path follows: the user whose packets the kernel is asked about (RTA_UID), as `uidrange`
    /// rules select on it. nil: the system's, root's. Set by the daemon from the client's credentials, never by
    /// the client.
    public var routingUser: UInt32?

    public init(
        requiredInterfaceKind: InterfaceKind? = nil, prohibitedInterfaceKinds: Set<InterfaceKind> = [],
        requiredInterfaceName: String? = nil, prohibitsExpensive: Bool = false, prohibitsConstrained: Bool = false,
        family: FamilyRequirement = .any, allowsUltraConstrained: Bool = false, prohibitsRoaming: Bool = false,
        routingUser: UInt32? = nil
    ) {
        self.routingUser = routingUser
        self.prohibitsRoaming = prohibitsRoaming
        self.allowsUltraConstrained = allowsUltraConstrained
        self.requiredInterfaceKind = requiredInterfaceKind
        self.prohibitedInterfaceKinds = prohibitedInterfaceKinds
        self.requiredInterfaceName = requiredInterfaceName
        self.prohibitsExpensive = prohibitsExpensive
        self.prohibitsConstrained = prohibitsConstrained
        self.family = family
    }

    /// No restriction of the client's own: every interface but the ultra-constrained ones, which a client must
    /// opt in to. What a client that sends no requirements is given.
    public static let unrestricted = PathParameters()

    /// The system path: every interface, ultra-constrained ones included. What the daemon's history, metrics and
    /// dispatcher, `pathctl status` and the system policy's gates follow.
    public static let system = PathParameters(allowsUltraConstrained: true)

    /// Which IP versions will do.
    public enum FamilyRequirement: String, Sendable, HashedByCase, CaseIterable {
        /// IPv4 or IPv6.
        case any
        /// IPv4 only.
        case ipv4
        /// IPv6 only.
        case ipv6

        /// The families this requirement accepts.
        public var families: AddressFamilies {
            switch self {
            case .any: .both
            case .ipv4: [.ipv4]
            case .ipv6: [.ipv6]
            }
        }
    }

    /// Whether the kind and name of an interface are allowed (cost and family are judged apart, for the reason).
    func allowsKindAndName(_ kind: InterfaceKind, name: String) -> Bool {
        if let requiredInterfaceKind, kind != requiredInterfaceKind { return false }
        if prohibitedInterfaceKinds.contains(kind) { return false }
        if let requiredInterfaceName, name != requiredInterfaceName { return false }
        return true
    }
}
