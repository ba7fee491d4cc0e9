// SPDX-License-Identifier: Apache-2.0
import PathModel

/// io.pathmond.PathRequirements on the wire: what a client may use. Every field is optional.
public struct WirePathRequirements: Codable, Sendable, Hashable {
    public var requiredInterfaceType: String?
    public var prohibitedInterfaceTypes: [String]?
    public var requiredInterface: String?
    public var prohibitExpensive: Bool?
    public var prohibitConstrained: Bool?
    public var family: String?
    /// Opt in to ultra-constrained interfaces. Older servers ignore it (and have no such interfaces).
    public var allowUltraConstrained: Bool?
    /// No roaming interfaces. Older servers ignore it (and know of no roaming).
    public var prohibitRoaming: Bool?
    /// The system's path (root's routing) rather than the calling user's: what the GIO module and the gates
    /// follow. The daemon reads it; it is not a requirement on interfaces.
    public var systemRouting: Bool?

    public init(_ parameters: PathParameters) {
        requiredInterfaceType = parameters.requiredInterfaceKind?.rawValue
        prohibitedInterfaceTypes =
            parameters.prohibitedInterfaceKinds.isEmpty
            ? nil : parameters.prohibitedInterfaceKinds.map(\.rawValue).sorted()
        requiredInterface = parameters.requiredInterfaceName
        prohibitExpensive = parameters.prohibitsExpensive ? true : nil
        prohibitConstrained = parameters.prohibitsConstrained ? true : nil
        family = parameters.family == .any ? nil : parameters.family.rawValue
        allowUltraConstrained = parameters.allowsUltraConstrained ? true : nil
        prohibitRoaming = parameters.prohibitsRoaming ? true : nil
    }

    /// The model value; names the offending field when a value is not one the interface defines.
    public func parameters() throws(WireFormatError) -> PathParameters {
        var parameters = PathParameters()
        if let requiredInterfaceType {
            guard let kind = InterfaceKind(rawValue: requiredInterfaceType) else {
                throw .unknownValue(field: "requiredInterfaceType", value: requiredInterfaceType)
            }
            parameters.requiredInterfaceKind = kind
        }
        for type in prohibitedInterfaceTypes ?? [] {
            guard let kind = InterfaceKind(rawValue: type) else {
                throw .unknownValue(field: "prohibitedInterfaceTypes", value: type)
            }
            parameters.prohibitedInterfaceKinds.insert(kind)
        }
        parameters.requiredInterfaceName = requiredInterface
        parameters.prohibitsExpensive = prohibitExpensive ?? false
        parameters.prohibitsConstrained = prohibitConstrained ?? false
        parameters.allowsUltraConstrained = allowUltraConstrained ?? false
        parameters.prohibitsRoaming = prohibitRoaming ?? false
        if let family {
            guard let requirement = PathParameters.FamilyRequirement(rawValue: family) else {
                throw .unknownValue(field: "family", value: family)
            }
            parameters.family = requirement
        }
        return parameters
    }
}

/// io.pathmond.Flow on the wire.
public struct WireFlow: Codable, Sendable, Hashable {
    public var interface: String
    public var localAddress: String
    public var remoteAddress: String?
    public var requirements: WirePathRequirements?
    /// SO_BINDTODEVICE on the socket; absent (an older client): false.
    public var bound: Bool?
    /// The interface's index, when the client knows it; absent: the daemon reads it from the name.
    public var interfaceIndex: Int32?

    public init(_ flow: Flow) {
        interface = flow.interfaceName
        localAddress = flow.localAddress.description
        remoteAddress = flow.remoteAddress?.description
        requirements = flow.parameters == .unrestricted ? nil : WirePathRequirements(flow.parameters)
        bound = flow.isBoundToInterface ? true : nil
        interfaceIndex = flow.interfaceIndex
    }

    /// The model value; names the offending field when a value does not parse. Addresses are taken as a socket
    /// prints them: an IPv4-mapped IPv6 address ("::ffff:10.0.0.2", from a dual-stack socket) is the IPv4
    /// address, and a link-local address may carry its zone ("fe80::1%eth0", or the index "%3") when the zone is
    /// the flow's interface.
    public func flow() throws(WireFormatError) -> Flow {
        guard let local = Self.address(localAddress, interface: interface) else {
            throw .unknownValue(field: "localAddress", value: localAddress)
        }
        var remote: IPAddress?
        if let remoteAddress {
            guard let address = Self.address(remoteAddress, interface: interface) else {
                throw .unknownValue(field: "remoteAddress", value: remoteAddress)
            }
            remote = address
        }
        return Flow(
            interfaceName: interface, localAddress: local.unmappingIPv4, remoteAddress: remote?.unmappingIPv4,
            parameters: try requirements?.parameters() ?? .unrestricted, isBoundToInterface: bound ?? false,
            interfaceIndex: interfaceIndex)
    }
}

extension WireFlow {
    /// An address, with an IPv6 zone allowed when it names `interface` (by name, or by a decimal index, which only
    /// the daemon can check against the name, so it is taken on trust here).
    static func address(_ text: String, interface: String) -> IPAddress? {
        // Looked for in the UTF-8 view: found character by character, a flow's two addresses were 7 K instructions.
        guard let percent = text.utf8.firstIndex(of: UInt8(ascii: "%")) else { return unzonedAddress(text) }
        let zone = text[text.index(after: percent)...]
        guard zone == interface || (!zone.isEmpty && zone.allSatisfy { ("0"..."9").contains($0) }),
            let address = unzonedAddress(String(text[..<percent])), address.family == .ipv6
        else { return nil }
        return address
    }

    /// An address, IPv6 ones also with their last 32 bits as a dotted quad ("::ffff:10.0.0.2", RFC 4291), the
    /// form in which a dual-stack socket prints an IPv4 peer. The model's parser takes canonical text only.
    private static func unzonedAddress(_ text: String) -> IPAddress? {
        guard let lastColon = text.utf8.lastIndex(of: UInt8(ascii: ":")),
            text.utf8[lastColon...].contains(UInt8(ascii: "."))
        else { return IPAddress(text) }
        guard let quad = IPAddress(String(text[text.index(after: lastColon)...])), quad.family == .ipv4,
            let head = IPAddress(String(text[...lastColon]) + "0:0"), head.family == .ipv6
        else { return nil }
        return IPAddress(bytes: Array(head.bytes.prefix(12)) + quad.bytes)
    }
}

/// io.pathmond.FlowStatus on the wire.
public struct WireFlowStatus: Codable, Sendable, Hashable {
    public var isViable: Bool
    public var betterPathAvailable: Bool
    public var betterInterface: String?
    public var betterInterfaceAddresses: [String]?

    public init(_ status: FlowStatus) {
        isViable = status.isViable
        betterPathAvailable = status.betterPathAvailable
        betterInterface = status.betterInterface
        betterInterfaceAddresses =
            status.betterInterfaceAddresses.isEmpty ? nil : status.betterInterfaceAddresses.map(\.description)
    }

    /// The model value (addresses that do not parse are left out).
    public var status: FlowStatus {
        FlowStatus(
            isViable: isViable, betterPathAvailable: betterPathAvailable, betterInterface: betterInterface,
            betterInterfaceAddresses: (betterInterfaceAddresses ?? []).compactMap(IPAddress.init))
    }
}
