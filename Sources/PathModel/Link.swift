// SPDX-License-Identifier: Apache-2.0
/// A network interface as the kernel reports it (RTM_NEWLINK), plus what sysfs says about its device.
///
/// A value whose fields live in one box that copies share until one of them changes: a link travels by copy
/// through every stage of an event (the batch, both kernel states, the hints' enrichers, the tracker's statuses),
/// and field by field (six strings and arrays to retain and release) each copy cost 250 instructions, 6,800 of a
/// link flip's (issue 41); a copy is now one reference. Its own box, not `CopyOnWrite`: through the wrapper's
/// accessors and its whole-value comparison the same link flip cost 3,900 instructions more.
public struct Link: Sendable, Hashable {
    /// The fields, shared by the copies until one of them is changed.
    private var storage: Storage

    /// `@unchecked Sendable`: a box is changed only while one value alone holds it (`mutableStorage`), so a box
    /// that two values, or two threads, can reach is never written.
    private final class Storage: @unchecked Sendable {
        var index: Int32
        var name: String
        var flags: LinkFlags
        var operState: OperState
        var linkKind: String?
        var hardwareType: UInt16
        var hardwareAddress: String?
        var device: DeviceFacts
        var tunnel: TunnelEndpoints?
        /// `Classification.isTunnel(kind:hardwareType:)` of the two fields, worked out when either is set: every
        /// status derived asks it, and the kind's look-up in a set of strings cost each asking 500 instructions.
        var isTunnel: Bool

        init(
            index: Int32, name: String, flags: LinkFlags, operState: OperState, linkKind: String?,
            hardwareType: UInt16, hardwareAddress: String?, device: DeviceFacts, tunnel: TunnelEndpoints?,
            isTunnel: Bool? = nil
        ) {
            self.index = index
            self.name = name
            self.flags = flags
            self.operState = operState
            self.linkKind = linkKind
            self.hardwareType = hardwareType
            self.hardwareAddress = hardwareAddress
            self.device = device
            self.tunnel = tunnel
            self.isTunnel = isTunnel ?? Classification.isTunnel(kind: linkKind, hardwareType: hardwareType)
        }

        func copy() -> Storage {
            Storage(
                index: index, name: name, flags: flags, operState: operState, linkKind: linkKind,
                hardwareType: hardwareType, hardwareAddress: hardwareAddress, device: device, tunnel: tunnel,
                isTunnel: isTunnel)
        }

        /// Whether `other` holds the same link but for its state (flags and operational state).
        func sameDevice(as other: Storage) -> Bool {
            index == other.index && name == other.name && linkKind == other.linkKind
                && hardwareType == other.hardwareType && hardwareAddress == other.hardwareAddress
                && device == other.device && tunnel == other.tunnel
        }
    }

    /// The box, made this value's own before it is written.
    private var mutableStorage: Storage {
        mutating get {
            if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
            return storage
        }
    }

    /// The kernel's interface index, stable for the life of the interface.
    public var index: Int32 {
        get { storage.index }
        set { mutableStorage.index = newValue }
    }
    /// The interface name (it can change: renames arrive as a new link message with the same index).
    public var name: String {
        get { storage.name }
        set { mutableStorage.name = newValue }
    }
    /// The interface flags that matter for a path.
    public var flags: LinkFlags {
        get { storage.flags }
        set { mutableStorage.flags = newValue }
    }
    /// RFC 2863 operational state (IFLA_OPERSTATE).
    public var operState: OperState {
        get { storage.operState }
        set { mutableStorage.operState = newValue }
    }
    /// The rtnetlink link kind (IFLA_INFO_KIND): "veth", "bridge", "tun", "wireguard", ...; nil for hardware.
    public var linkKind: String? {
        get { storage.linkKind }
        set {
            let storage = mutableStorage
            storage.linkKind = newValue
            storage.isTunnel = Classification.isTunnel(kind: newValue, hardwareType: storage.hardwareType)
        }
    }
    /// The hardware type (ARPHRD_*): 1 Ethernet, 772 loopback, 65534 none (tun), 519 raw IP, 512 PPP.
    public var hardwareType: UInt16 {
        get { storage.hardwareType }
        set {
            let storage = mutableStorage
            storage.hardwareType = newValue
            storage.isTunnel = Classification.isTunnel(kind: storage.linkKind, hardwareType: newValue)
        }
    }
    /// The link-layer address as colon-separated hex, if the link has one.
    public var hardwareAddress: String? {
        get { storage.hardwareAddress }
        set { mutableStorage.hardwareAddress = newValue }
    }
    /// Facts about the underlying device from sysfs; `.unknown` until the daemon has looked.
    public var device: DeviceFacts {
        get { storage.device }
        set { mutableStorage.device = newValue }
    }
    /// For an IP tunnel or WireGuard, where its own packets go; nil for other links and tunnels whose far end the
    /// kernel does not know (tun, PPP).
    public var tunnel: TunnelEndpoints? {
        get { storage.tunnel }
        set { mutableStorage.tunnel = newValue }
    }

    public init(
        index: Int32, name: String, flags: LinkFlags, operState: OperState = .unknown, linkKind: String? = nil,
        hardwareType: UInt16 = HardwareType.ethernet, hardwareAddress: String? = nil, device: DeviceFacts = .unknown,
        tunnel: TunnelEndpoints? = nil
    ) {
        storage = Storage(
            index: index, name: name, flags: flags, operState: operState, linkKind: linkKind,
            hardwareType: hardwareType, hardwareAddress: hardwareAddress, device: device, tunnel: tunnel)
    }

    /// Whether the link is a VPN or tunnel (`Classification.isTunnel`), as worked out when its kind was set.
    public var isTunnel: Bool { storage.isTunnel }

    /// Administratively up and able to pass packets: IFF_UP and IFF_RUNNING. The kernel sets RUNNING for
    /// operstate UP and for UNKNOWN, so links with no carrier concept (tun with a reader) count as running.
    public var isRunning: Bool { flags.contains(.up) && flags.contains(.running) }

    /// Whether `other` is this link in another state: only its flags or operational state differ. Compared field
    /// by field: a copy of `other` restated with this link's state would be a box made for the comparison.
    public func differsOnlyInState(from other: Link) -> Bool {
        storage === other.storage || storage.sameDevice(as: other.storage)
    }

    /// Copies that still share their box are equal without a look at a field.
    public static func == (lhs: Link, rhs: Link) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.storage.flags == rhs.storage.flags && lhs.storage.operState == rhs.storage.operState
                && lhs.storage.sameDevice(as: rhs.storage))
    }

    public func hash(into hasher: inout Hasher) {
        let fields = storage
        hasher.combine(fields.index)
        hasher.combine(fields.name)
        hasher.combine(fields.flags)
        hasher.combine(fields.operState)
        hasher.combine(fields.linkKind)
        hasher.combine(fields.hardwareType)
        hasher.combine(fields.hardwareAddress)
        hasher.combine(fields.device)
        hasher.combine(fields.tunnel)
    }
}

extension Link: CustomDebugStringConvertible {
    /// Its fields, as a struct's would print (the box would print as itself).
    public var debugDescription: String {
        let kind = linkKind ?? "nil"
        let address = hardwareAddress ?? "nil"
        let tunnel = tunnel.map { "\($0)" } ?? "nil"
        return "Link(index: \(index), name: \(name), flags: 0x\(String(flags.rawValue, radix: 16)), operState: "
            + "\(operState.name), linkKind: \(kind), hardwareType: \(hardwareType), hardwareAddress: \(address), "
            + "device: \(device), tunnel: \(tunnel))"
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
