// SPDX-License-Identifier: Apache-2.0
import PathModel

/// io.pathmond.Interface on the wire: one interface's status for ListInterfaces, and what the client library
/// reports as `InterfaceDetails` (`PathmondConnection.interfaces()`, `pathctl status --json`). One definition of the
/// shape, held to docs/io.pathmond.varlink field by field (WireShapeTests).
public struct WireInterface: Codable, Sendable, Hashable {
    /// The kernel's interface index.
    public var index: Int32
    /// The interface's name, e.g. "eth0".
    public var name: String
    /// The kind as the protocol spells it ("wired", "wifi", "cellular", "loopback", "other").
    public var type: String
    /// Whether traffic over it is costly.
    public var isExpensive: Bool
    /// What decided `isExpensive` (ExpensiveSource's raw value: "user", "interfaceClass", "dhcpLease",
    /// "networkManager", ...); absent when nothing did.
    public var expensiveSource: String?
    /// How far it is from usable: "down", "noCarrier", "noAddress", "noRoute" or "usable".
    public var state: String
    /// The kernel's operational state ("up", "lower-layer-down", ...).
    public var operState: String
    /// The rtnetlink link kind ("veth", "bridge", ...); absent for hardware devices.
    public var linkKind: String?
    /// The link-layer address, if the link has one.
    public var hardwareAddress: String?
    /// Its addresses.
    public var addresses: [WireAddress]
    /// Its default routes, lowest metric first.
    public var routes: [WireRoute]
    /// Whether it is usable for IPv4.
    public var supportsIPv4: Bool
    /// Whether it is usable for IPv6.
    public var supportsIPv6: Bool
    /// The key of the network it is attached to, when known.
    public var network: String?
    /// That network's name for people: the user's name for it, else a description.
    public var networkName: String?
    /// Whether its network is in Low Data Mode.
    public var isConstrained: Bool
    /// Whether it is a tunnel (a VPN); absent from servers older than the field.
    public var isTunnel: Bool?
    /// For a tunnel, the name of the interface that carries its packets, whose cost it inherits.
    public var tunnelCarrier: String?
    /// Whether it is ultra-constrained (a satellite link; also constrained); absent from older servers.
    public var isUltraConstrained: Bool?
    /// Whether its modem is registered roaming; absent from older servers.
    public var isRoaming: Bool?
    /// "unknown", "captive" or "open"; absent from older servers.
    public var captivePortal: String?
    /// The portal's API URI (RFC 8910), when its network announced one.
    public var captivePortalURI: String?
    /// Its link's figures and grade; absent when nothing was measured, and from older servers.
    public var linkQuality: WireLinkQuality?
    /// Its network's data limit and usage this cycle; absent without one, and from older servers.
    public var dataLimit: WireDataLimit?

    /// The interface as the wire describes it; `policy` supplies the user's names for networks.
    public init(_ status: InterfaceStatus, policy: Policy = Policy()) {
        index = status.link.index
        name = status.link.name
        type = status.interfaceClass.kind.rawValue
        isExpensive = status.isExpensive
        expensiveSource = status.expensiveSource?.rawValue
        state = status.readiness.wireName
        operState = status.link.operState.name
        linkKind = status.link.linkKind
        hardwareAddress = status.link.hardwareAddress
        addresses = status.addresses.map(WireAddress.init)
        routes = status.routes.map(WireRoute.init)
        supportsIPv4 = status.supportedFamilies.contains(.ipv4)
        supportsIPv6 = status.supportedFamilies.contains(.ipv6)
        network = status.identity?.key.description
        networkName = status.identity.map {
            NetworkNaming.displayName(of: $0, gateway: NetworkNaming.gateway(of: status), policy: policy)
        }
        isConstrained = status.isConstrained
        isTunnel = status.isTunnel
        tunnelCarrier = nil
        isUltraConstrained = status.isUltraConstrained
        isRoaming = status.isRoaming
        captivePortal = status.captivePortal.rawValue
        captivePortalURI = status.captivePortalURI
        linkQuality = status.linkQuality.map(WireLinkQuality.init)
        dataLimit = status.dataLimit.map(WireDataLimit.init)
    }

    /// Every interface, each tunnel with its carrier's name.
    public static func list(_ statuses: [InterfaceStatus], policy: Policy = Policy()) -> [WireInterface] {
        let names = Dictionary(statuses.map { ($0.link.index, $0.link.name) }, uniquingKeysWith: { first, _ in first })
        return statuses.map { status in
            var wire = WireInterface(status, policy: policy)
            wire.tunnelCarrier = status.carrier.flatMap { names[$0] }
            return wire
        }
    }
}

/// io.pathmond.Address on the wire: one address of an interface.
public struct WireAddress: Codable, Sendable, Hashable {
    /// The address as text.
    public var address: String
    /// Its prefix length.
    public var prefixLength: UInt8
    /// "global", "site", "link", "host" or "nowhere", as `ip address` prints it.
    public var scope: String
    /// Still being checked for duplicates, so not usable yet.
    public var isTentative: Bool

    public init(_ address: InterfaceAddress) {
        self.address = address.address.description
        prefixLength = address.prefixLength
        scope = address.scope.wireName
        isTentative = address.isTentative
    }
}

/// io.pathmond.Route on the wire: one default route out of an interface.
public struct WireRoute: Codable, Sendable, Hashable {
    /// "0.0.0.0/0", "::/0", or a half of a split default ("128.0.0.0/1").
    public var destination: String
    /// The gateway, when the route has one.
    public var gateway: String?
    /// Its metric.
    public var metric: UInt32
    /// The routing table it is in.
    public var table: UInt32

    public init(_ route: DefaultRoute) {
        let zero = route.family == .ipv4 ? "0.0.0.0" : "::"
        let splitHalf = route.family == .ipv4 ? "128.0.0.0" : "8000::"
        destination = "\(route.destinationHighByte == 0 ? zero : splitHalf)/\(route.prefixLength)"
        gateway = route.gateway?.description
        metric = route.metric
        table = route.table
    }
}

extension InterfaceReadiness {
    /// The Varlink enum spelling (identifiers, so lowerCamel rather than the CLI's hyphens).
    public var wireName: String {
        switch self {
        case .down: return "down"
        case .noCarrier: return "noCarrier"
        case .noAddress: return "noAddress"
        case .noRoute: return "noRoute"
        case .usable: return "usable"
        }
    }
}

extension AddressScope {
    /// The scope's name as `ip address` prints it.
    public var wireName: String {
        switch self {
        case .universe: return "global"
        case .site: return "site"
        case .link: return "link"
        case .host: return "host"
        case .nowhere: return "nowhere"
        }
    }
}
