// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol

/// One interface as pathmond reports it (`PathmondConnection.interfaces()`): the client library's own type, so
/// an app never handles the protocol's wire structures. It encodes with the Varlink interface's field names, as
/// `pathctl status --json` prints it.
public struct InterfaceDetails: Sendable, Hashable, Encodable {
    /// The kernel's interface index.
    public var index: Int32
    /// The interface's name, e.g. "eth0".
    public var name: String
    /// The kind as the protocol spells it ("wired", "wifi", "cellular", "loopback", "other").
    public var type: String
    /// Whether traffic over it is costly.
    public var isExpensive: Bool
    /// What decided `isExpensive` ("user", "interfaceClass", "dhcpLease", "networkManager", ...); nil if nothing.
    public var expensiveSource: String?
    /// How far it is from usable: "down", "noCarrier", "noAddress", "noRoute" or "usable".
    public var state: String
    /// The kernel's operational state ("up", "lower-layer-down", ...).
    public var operState: String
    /// The rtnetlink link kind ("veth", "bridge", ...); nil for hardware devices.
    public var linkKind: String?
    /// The link-layer address, if the link has one.
    public var hardwareAddress: String?
    /// Its addresses.
    public var addresses: [Address]
    /// Its default routes, lowest metric first.
    public var routes: [Route]
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
    /// Whether it is a tunnel (a VPN); nil from a pathmond older than the field.
    public var isTunnel: Bool?
    /// For a tunnel: the interface that carries its packets, whose cost it inherits.
    public var tunnelCarrier: String?
    /// Whether it is ultra-constrained (a satellite link; also constrained); nil from a pathmond older than the field.
    public var isUltraConstrained: Bool?
    /// Whether its modem is registered roaming; nil from a pathmond older than the field.
    public var isRoaming: Bool?
    /// "unknown", "captive" or "open"; nil from a pathmond older than the field.
    public var captivePortal: String?
    /// The portal API URI (RFC 8910) its network announced.
    public var captivePortalURI: String?
    /// Its link's figures and grade; nil when nothing was measured, or from a pathmond older than the field.
    public var linkQuality: WireLinkQuality?

    /// The kind, as the path's interfaces carry it (`.other` for a kind this library does not know).
    public var kind: InterfaceKind { InterfaceKind(rawValue: type) ?? .other }

    /// One address of an interface.
    public struct Address: Sendable, Hashable, Encodable {
        /// The address as text.
        public var address: String
        /// Its prefix length.
        public var prefixLength: UInt8
        /// "global", "site", "link", "host" or "nowhere", as `ip address` prints it.
        public var scope: String
        /// Still being checked for duplicates, so not usable yet.
        public var isTentative: Bool
    }

    /// One default route out of an interface.
    public struct Route: Sendable, Hashable, Encodable {
        /// "0.0.0.0/0", "::/0", or a half of a split default ("128.0.0.0/1").
        public var destination: String
        /// The gateway, when the route has one.
        public var gateway: String?
        /// Its metric.
        public var metric: UInt32
        /// The routing table it is in.
        public var table: UInt32
    }

    init(_ wire: WireInterface) {
        index = wire.index
        name = wire.name
        type = wire.type
        isExpensive = wire.isExpensive
        expensiveSource = wire.expensiveSource
        state = wire.state
        operState = wire.operState
        linkKind = wire.linkKind
        hardwareAddress = wire.hardwareAddress
        addresses = wire.addresses.map {
            Address(address: $0.address, prefixLength: $0.prefixLength, scope: $0.scope, isTentative: $0.isTentative)
        }
        routes = wire.routes.map {
            Route(destination: $0.destination, gateway: $0.gateway, metric: $0.metric, table: $0.table)
        }
        supportsIPv4 = wire.supportsIPv4
        supportsIPv6 = wire.supportsIPv6
        network = wire.network
        networkName = wire.networkName
        isConstrained = wire.isConstrained
        isTunnel = wire.isTunnel
        tunnelCarrier = wire.tunnelCarrier
        isUltraConstrained = wire.isUltraConstrained
        isRoaming = wire.isRoaming
        captivePortal = wire.captivePortal
        captivePortalURI = wire.captivePortalURI
        linkQuality = wire.linkQuality
    }
}

/// A network pathmond remembers (the user set something for it) or sees attached now.
public struct NetworkDetails: Sendable, Hashable, Encodable {
    /// The stable key: "wifi:" and the SSID, "cellular:" and a hash of the SIM, or "wired:" and the gateway's
    /// link-layer address.
    public var key: String
    /// A name for people: the user's name for it if any, else a description (Wi-Fi "Home").
    public var displayName: String
    /// Low Data Mode as the user set it; nil when never set.
    public var constrained: Bool?
    /// Expensive as the user set it, over detection; nil when left to detection.
    public var expensive: Bool?
    /// The interfaces attached to it now.
    public var interfaces: [String]
    /// The name the user gave it (`pathctl name`); nil when none.
    public var name: String?
    /// Ultra-constrained as the user set it (`pathctl set-ultra-constrained`); nil when never set.
    public var ultraConstrained: Bool?

    init(_ wire: WireNetwork) {
        ultraConstrained = wire.ultraConstrained
        key = wire.key
        displayName = wire.displayName
        constrained = wire.constrained
        expensive = wire.expensive
        interfaces = wire.interfaces
        name = wire.name
    }
}

/// pathmond's own condition (`PathmondConnection.status()`).
public struct DaemonStatus: Sendable, Hashable, Encodable {
    /// pathmond's version.
    public var version: String
    /// Where it keeps the user's network settings.
    public var policyFile: String
    /// What went wrong loading that file (it was kept aside); nil when all is well.
    public var policyProblem: String?
    /// The inode of the network namespace pathmond watches (/proc/PID/ns/net); nil from older daemons.
    public var networkNamespace: Int?

    init(_ wire: WireDaemonStatus) {
        version = wire.version
        policyFile = wire.policyFile
        policyProblem = wire.policyProblem
        networkNamespace = wire.networkNamespace
    }
}
