// SPDX-License-Identifier: Apache-2.0
import DBus

/// NetworkManager's answer to "is this device metered" (NMMetered in NetworkManager's nm-dbus-interface.h).
public enum NetworkManagerMetered: UInt32, Sendable, Hashable {
    /// NM_METERED_UNKNOWN: NetworkManager has no idea.
    case unknown = 0
    /// NM_METERED_YES: the user (connection.metered) or the network said so.
    case yes = 1
    /// NM_METERED_NO: the user said it is not.
    case no = 2
    /// NM_METERED_GUESS_YES: NetworkManager's heuristics (ANDROID_METERED in DHCP, a WWAN or Bluetooth device).
    case guessYes = 3
    /// NM_METERED_GUESS_NO: heuristics found nothing.
    case guessNo = 4

    /// What pathmond counts as expensive: NetworkManager's YES and GUESS_YES, as GIO's NetworkManager backend does.
    public var isMetered: Bool { self == .yes || self == .guessYes }
}

/// NetworkManager's connectivity check result for a device (NMConnectivityState in nm-dbus-interface.h), per IP
/// version in the device's Ip4Connectivity and Ip6Connectivity (NetworkManager 1.16 and later).
public enum NetworkManagerConnectivity: UInt32, Sendable, Hashable {
    /// NM_CONNECTIVITY_UNKNOWN: not checked (checking off, or not yet).
    case unknown = 0
    /// NM_CONNECTIVITY_NONE: no route to the internet.
    case none = 1
    /// NM_CONNECTIVITY_PORTAL: the check was answered by a captive portal.
    case portal = 2
    /// NM_CONNECTIVITY_LIMITED: connected, but the check got no answer.
    case limited = 3
    /// NM_CONNECTIVITY_FULL: the check passed.
    case full = 4

    /// The device's state from its two families: a portal on either holds traffic; full on one with no portal is
    /// open; anything else says nothing.
    static func combined(_ first: Self, _ second: Self) -> Self {
        if first == .portal || second == .portal { return .portal }
        if first == .full || second == .full { return .full }
        return first == .unknown ? second : first
    }
}

/// What one NetworkManager device object says about itself.
struct NetworkManagerDevice: Hashable, Sendable {
    /// `Interface`: the control interface (for a modem, its tty; otherwise the network interface).
    var interface: String
    /// `IpInterface`: the data interface, once the device is activated (a modem's wwan0); empty otherwise.
    var ipInterface: String
    var metered: NetworkManagerMetered
    var ip4Connectivity = NetworkManagerConnectivity.unknown
    var ip6Connectivity = NetworkManagerConnectivity.unknown

    /// Both families' connectivity in one.
    var connectivity: NetworkManagerConnectivity { .combined(ip4Connectivity, ip6Connectivity) }

    /// The kernel interfaces this device speaks for.
    var interfaceNames: Set<String> { Set([interface, ipInterface].filter { !$0.isEmpty }) }
}

/// Pure decoding of NetworkManager's D-Bus answers (NetworkManager's D-Bus API reference,
/// org.freedesktop.NetworkManager and org.freedesktop.NetworkManager.Device).
enum NetworkManagerObjects {
    static let service = "org.freedesktop.NetworkManager"
    static let rootPath = "/org/freedesktop/NetworkManager"
    static let managerInterface = "org.freedesktop.NetworkManager"
    static let deviceInterface = "org.freedesktop.NetworkManager.Device"
    static let devicePathPrefix = "/org/freedesktop/NetworkManager/Devices"

    /// The device object paths from `Properties.Get(manager, "Devices")`, whose body is one variant holding `ao`.
    static func devicePaths(fromGetBody body: [BusValue]) throws(BusError) -> [String] {
        guard body.count == 1, let paths = body[0].texts else { throw .badMessage }
        return paths
    }

    /// A device from its properties (`Properties.GetAll(device)`'s `a{sv}`). No `Interface` means no device we can
    /// name; a `Metered` missing, of the wrong type or out of range counts as unknown.
    static func device(fromProperties properties: [String: BusValue]) -> NetworkManagerDevice? {
        guard case .string(let interface) = properties["Interface"]?.unwrapped else { return nil }
        var device = NetworkManagerDevice(interface: interface, ipInterface: "", metered: .unknown)
        apply(properties, to: &device)
        return device
    }

    /// Updates a device from the properties a PropertiesChanged signal carries; the others are left alone.
    static func apply(_ properties: [String: BusValue], to device: inout NetworkManagerDevice) {
        if case .string(let interface) = properties["Interface"]?.unwrapped { device.interface = interface }
        if case .string(let interface) = properties["IpInterface"]?.unwrapped { device.ipInterface = interface }
        if let value = properties["Metered"]?.unwrapped {
            device.metered = value.uint32Value.flatMap(NetworkManagerMetered.init(rawValue:)) ?? .unknown
        }
        if let value = properties["Ip4Connectivity"]?.unwrapped {
            device.ip4Connectivity = value.uint32Value.flatMap(NetworkManagerConnectivity.init(rawValue:)) ?? .unknown
        }
        if let value = properties["Ip6Connectivity"]?.unwrapped {
            device.ip6Connectivity = value.uint32Value.flatMap(NetworkManagerConnectivity.init(rawValue:)) ?? .unknown
        }
    }

    /// The connectivity of every interface NetworkManager manages, for those it checked (unknown left out). Two
    /// devices naming one interface: a portal on either wins, then full.
    static func connectivityByInterface(
        _ devices: some Sequence<NetworkManagerDevice>
    ) -> [String: NetworkManagerConnectivity] {
        var result: [String: NetworkManagerConnectivity] = [:]
        for device in devices where device.connectivity != .unknown {
            for name in device.interfaceNames {
                result[name] = .combined(result[name] ?? .unknown, device.connectivity)
            }
        }
        return result
    }

    /// The metered value of every interface NetworkManager manages. Two devices naming one interface (a modem's
    /// data interface is also a device of its own in some setups): metered if either says so.
    static func meteredByInterface(_ devices: some Sequence<NetworkManagerDevice>) -> [String: NetworkManagerMetered] {
        var result: [String: NetworkManagerMetered] = [:]
        for device in devices {
            for name in device.interfaceNames where result[name]?.isMetered != true {
                result[name] = device.metered
            }
        }
        return result
    }
}

/// The parts of an org.freedesktop.DBus.Properties.PropertiesChanged signal (`sa{sv}as`).
struct PropertiesChange: Hashable, Sendable {
    var interface: String
    var changed: [String: BusValue]
    var invalidated: [String]

    init?(body: [BusValue]) {
        guard body.count == 3, case .string(let interface) = body[0], let changed = body[1].dictionaryByText,
            let invalidated = body[2].texts
        else { return nil }
        self.interface = interface
        self.changed = changed
        self.invalidated = invalidated
    }
}
