// SPDX-License-Identifier: Apache-2.0
/// What kind of network an interface reaches, in the order a path prefers them.
public enum InterfaceKind: String, Sendable, HashedByCase, CaseIterable {
    /// Ethernet and Ethernet-like links: physical ports, veth, bridges, USB tethering.
    case wired
    /// An 802.11 station interface.
    case wifi
    /// A WWAN modem (QMI, MBIM, raw-IP).
    case cellular
    /// The loopback interface; never part of a path.
    case loopback
    /// Anything else: tun, WireGuard, PPP, tunnels.
    case other

    /// Lower ranks are preferred: wired, then Wi-Fi, then cellular, then other.
    public var preferenceRank: Int {
        switch self {
        case .wired: return 0
        case .wifi: return 1
        case .cellular: return 2
        case .other: return 3
        case .loopback: return 4
        }
    }
}
