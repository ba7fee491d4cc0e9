// SPDX-License-Identifier: Apache-2.0
import PathModel

/// io.pathmond.Path on the wire.
public struct WirePath: Codable, Sendable, Hashable {
    public var status: String
    public var unsatisfiedReason: String?
    public var availableInterfaces: [WirePathInterface]
    public var isExpensive: Bool
    public var isConstrained: Bool
    public var supportsIPv4: Bool
    public var supportsIPv6: Bool
    public var supportsDNS: Bool
    public var gateways: [String]
    /// Optional on the wire: absent from servers older than the field.
    public var isUltraConstrained: Bool?
    /// Optional on the wire: absent from servers older than the field.
    public var isRoaming: Bool?
    /// unknown, captive or open; optional on the wire (absent from older servers: unknown).
    public var captivePortal: String?
    /// The portal's API URI (RFC 8910), when the network announced one.
    public var captivePortalURI: String?
    /// What that portal's API answered (RFC 8908); absent unless pathmond checked it, and from older servers.
    public var captivePortalAPI: WireCaptivePortalAPI?
    /// The preferred interface's link quality; absent when nothing was measured, and from older servers.
    public var linkQuality: WireLinkQuality?
    /// Its network's data limit and usage this cycle; absent without one, and from older servers.
    public var dataLimit: WireDataLimit?

    public init(_ path: Path) {
        status = path.status.rawValue
        unsatisfiedReason = path.unsatisfiedReason?.rawValue
        availableInterfaces = path.availableInterfaces.map(WirePathInterface.init)
        isExpensive = path.isExpensive
        isConstrained = path.isConstrained
        supportsIPv4 = path.supportsIPv4
        supportsIPv6 = path.supportsIPv6
        supportsDNS = path.supportsDNS
        gateways = path.gateways.map(\.description)
        isUltraConstrained = path.isUltraConstrained
        isRoaming = path.isRoaming
        captivePortal = path.captivePortal.rawValue
        captivePortalURI = path.captivePortalURI
        captivePortalAPI = path.captivePortalAPI.map(WireCaptivePortalAPI.init)
        linkQuality = path.linkQuality.map(WireLinkQuality.init)
        dataLimit = path.dataLimit.map(WireDataLimit.init)
    }

    /// The model value; throws if a field holds a value the protocol does not define.
    public func path() throws(WireFormatError) -> Path {
        guard let status = PathStatus(rawValue: status) else { throw .unknownValue(field: "status", value: status) }
        var reason: UnsatisfiedReason?
        if let unsatisfiedReason {
            guard let known = UnsatisfiedReason(rawValue: unsatisfiedReason) else {
                throw .unknownValue(field: "unsatisfiedReason", value: unsatisfiedReason)
            }
            reason = known
        }
        var interfaces: [PathInterface] = []
        for interface in availableInterfaces { interfaces.append(try interface.pathInterface()) }
        var addresses: [IPAddress] = []
        for gateway in gateways {
            guard let address = IPAddress(gateway) else { throw .unknownValue(field: "gateways", value: gateway) }
            addresses.append(address)
        }
        var path = Path(
            status: status, unsatisfiedReason: reason, availableInterfaces: interfaces, isExpensive: isExpensive,
            isConstrained: isConstrained, supportsIPv4: supportsIPv4, supportsIPv6: supportsIPv6,
            supportsDNS: supportsDNS, gateways: addresses, isUltraConstrained: isUltraConstrained ?? false,
            isRoaming: isRoaming ?? false)
        path.captivePortal = CaptivePortal(wire: captivePortal)
        path.captivePortalURI = captivePortalURI
        path.captivePortalAPI = captivePortalAPI?.status
        path.linkQuality = linkQuality?.linkQuality
        path.dataLimit = try dataLimit?.status()
        return path
    }
}

extension CaptivePortal {
    /// A wire value: absent (an older server) or one this version does not know (a newer server's) is unknown, so
    /// that a state added later never breaks a client.
    init(wire: String?) {
        self = wire.flatMap(CaptivePortal.init(rawValue:)) ?? .unknown
    }
}

/// io.pathmond.PathInterface on the wire.
public struct WirePathInterface: Codable, Sendable, Hashable {
    public var index: Int32
    public var name: String
    public var type: String
    public var isExpensive: Bool
    public var isConstrained: Bool
    /// Optional on the wire: absent from servers older than the field.
    public var isTunnel: Bool?
    /// Optional on the wire: absent from servers older than the field.
    public var isUltraConstrained: Bool?
    /// Optional on the wire: absent from servers older than the field.
    public var isRoaming: Bool?
    /// unknown, captive or open; optional on the wire.
    public var captivePortal: String?
    /// Its link quality; absent when nothing was measured, and from older servers.
    public var linkQuality: WireLinkQuality?
    /// Its network's data limit and usage this cycle; absent without one, and from older servers.
    public var dataLimit: WireDataLimit?

    public init(_ interface: PathInterface) {
        index = interface.index
        name = interface.name
        type = interface.kind.rawValue
        isExpensive = interface.isExpensive
        isConstrained = interface.isConstrained
        isTunnel = interface.isTunnel
        isUltraConstrained = interface.isUltraConstrained
        isRoaming = interface.isRoaming
        captivePortal = interface.captivePortal.rawValue
        linkQuality = interface.linkQuality.map(WireLinkQuality.init)
        dataLimit = interface.dataLimit.map(WireDataLimit.init)
    }

    func pathInterface() throws(WireFormatError) -> PathInterface {
        guard let kind = InterfaceKind(rawValue: type) else { throw .unknownValue(field: "type", value: type) }
        var interface = PathInterface(
            index: index, name: name, kind: kind, isExpensive: isExpensive, isConstrained: isConstrained,
            isTunnel: isTunnel ?? false, isUltraConstrained: isUltraConstrained ?? false,
            isRoaming: isRoaming ?? false)
        interface.captivePortal = CaptivePortal(wire: captivePortal)
        interface.linkQuality = linkQuality?.linkQuality
        interface.dataLimit = try dataLimit?.status()
        return interface
    }
}

/// A reply that does not match the protocol.
public enum WireFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A field held a value the interface definition does not allow.
    case unknownValue(field: String, value: String)

    public var description: String {
        switch self {
        case .unknownValue(let field, let value): return "unexpected value \"\(value)\" for \(field)"
        }
    }
}
