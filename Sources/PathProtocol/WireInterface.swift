// SPDX-License-Identifier: Apache-2.0
import PathModel

/// io.pathmond.Interface on the wire: one interface's status for ListInterfaces.
public struct WireInterface: Codable, Sendable, Hashable {
    public var index: Int32
    public var name: String
    public var type: String
    public var isExpensive: Bool
    /// What decided isExpensive (ExpensiveSource's raw value); absent when nothing did.
    public var expensiveSource: String?
    public var state: String
    public var operState: String
    public var linkKind: String?
    public var hardwareAddress: String?
    public var addresses: [WireAddress]
    public var routes: [WireRoute]
    public var supportsIPv4: Bool
    public var supportsIPv6: Bool
    public var network: String?
    public var networkName: String?
    public var isConstrained: Bool
    /// Optional on the wire: absent from servers older than the field.
    public var isTunnel: Bool?
    /// For a tunnel, the name of the interface that carries its packets.
    public var tunnelCarrier: String?
    /// Optional on the wire: absent from servers older than the field.
    public var isUltraConstrained: Bool?
    /// Optional on the wire: absent from servers older than the field.
    public var isRoaming: Bool?
    /// unknown, captive or open; optional on the wire.
    public var captivePortal: String?
    /// The portal's API URI (RFC 8910), when its network announced one.
    public var captivePortalURI: String?
    /// Its link quality; absent when nothing was measured, and from older servers.
    public var linkQuality: WireLinkQuality?

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

/// io.pathmond.Address on the wire.
public struct WireAddress: Codable, Sendable, Hashable {
    public var address: String
    public var prefixLength: UInt8
    public var scope: String
    public var isTentative: Bool

    public init(_ address: InterfaceAddress) {
        self.address = address.address.description
        prefixLength = address.prefixLength
        scope = address.scope.wireName
        isTentative = address.isTentative
    }
}

/// io.pathmond.Route on the wire.
public struct WireRoute: Codable, Sendable, Hashable {
    public var destination: String
    public var gateway: String?
    public var metric: UInt32
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
