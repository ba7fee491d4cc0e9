// SPDX-License-Identifier: Apache-2.0
/// A network interface as the kernel reports it (RTM_NEWLINK), plus what sysfs says about its device.
public struct Link: Sendable, Hashable {
    /// The kernel's interface index, stable for the life of the interface.
    public var index: Int32
    /// The interface name (it can change: renames arrive as a new link message with the same index).
    public var name: String
    /// The interface flags that matter for a path.
    public var flags: LinkFlags
    /// RFC 2863 operational state (IFLA_OPERSTATE).
    public var operState: OperState
    /// The rtnetlink link kind (IFLA_INFO_KIND): "veth", "bridge", "tun", "wireguard", ...; nil for hardware.
    public var linkKind: String?
    /// The hardware type (ARPHRD_*): 1 Ethernet, 772 loopback, 65534 none (tun), 519 raw IP, 512 PPP.
    public var hardwareType: UInt16
    /// The link-layer address as colon-separated hex, if the link has one.
    public var hardwareAddress: String?
    /// Facts about the underlying device from sysfs; `.unknown` until the daemon has looked.
    public var device: DeviceFacts
    /// For an IP tunnel or WireGuard, where its own packets go; nil for other links and tunnels whose far end the
    /// kernel does not know (tun, PPP).
    public var tunnel: TunnelEndpoints?

    public init(
        index: Int32, name: String, flags: LinkFlags, operState: OperState = .unknown, linkKind: String? = nil,
        hardwareType: UInt16 = HardwareType.ethernet, hardwareAddress: String? = nil, device: DeviceFacts = .unknown,
        tunnel: TunnelEndpoints? = nil
    ) {
        self.tunnel = tunnel
        self.index = index
        self.name = name
        self.flags = flags
        self.operState = operState
        self.linkKind = linkKind
        self.hardwareType = hardwareType
        self.hardwareAddress = hardwareAddress
        self.device = device
    }

    /// Administratively up and able to pass packets: IFF_UP and IFF_RUNNING. The kernel sets RUNNING for
    /// operstate UP and for UNKNOWN, so links with no carrier concept (tun with a reader) count as running.
    public var isRunning: Bool { flags.contains(.up) && flags.contains(.running) }

    /// Whether `other` is this link in another state: only its flags or operational state differ.
    public func differsOnlyInState(from other: Link) -> Bool {
        var restated = other
        restated.flags = flags
        restated.operState = operState
        return restated == self
    }
}

/// The ARPHRD_* hardware types the classification rules look at.
public enum HardwareType {
    /// ARPHRD_ETHER: Ethernet and everything that looks like it (veth, bridges, USB tethering).
    public static let ethernet: UInt16 = 1
    /// ARPHRD_PPP.
    public static let ppp: UInt16 = 512
    /// ARPHRD_RAWIP: WWAN modems without an Ethernet header.
    public static let rawIP: UInt16 = 519
    /// ARPHRD_LOOPBACK.
    public static let loopback: UInt16 = 772
    /// ARPHRD_NONE: tun and WireGuard.
    public static let none: UInt16 = 65534
}

/// The IFF_* interface flags a path depends on, with the kernel's bit values.
public struct LinkFlags: OptionSet, Sendable, Hashable {
    /// The flag bits as the kernel sends them (IFF_*), named or not.
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// IFF_UP: administratively up.
    public static let up = LinkFlags(rawValue: 0x1)
    /// IFF_LOOPBACK.
    public static let loopback = LinkFlags(rawValue: 0x8)
    /// IFF_POINTOPOINT.
    public static let pointToPoint = LinkFlags(rawValue: 0x10)
    /// IFF_RUNNING: operationally up (carrier, or no carrier concept).
    public static let running = LinkFlags(rawValue: 0x40)
    /// IFF_LOWER_UP: the driver signals carrier.
    public static let lowerUp = LinkFlags(rawValue: 0x10000)
}

/// RFC 2863 operational states, as IFLA_OPERSTATE numbers them.
public enum OperState: UInt8, Sendable, Hashable, CaseIterable {
    case unknown = 0
    case notPresent = 1
    case down = 2
    case lowerLayerDown = 3
    case testing = 4
    case dormant = 5
    case up = 6

    /// The spelling used in logs, JSON and the CLI.
    public var name: String {
        switch self {
        case .unknown: return "unknown"
        case .notPresent: return "not-present"
        case .down: return "down"
        case .lowerLayerDown: return "lower-layer-down"
        case .testing: return "testing"
        case .dormant: return "dormant"
        case .up: return "up"
        }
    }
}
