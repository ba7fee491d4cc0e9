// SPDX-License-Identifier: Apache-2.0
/// The network an interface is attached to, as opposed to the interface itself: what Low Data Mode and the
/// expensive flag are remembered for, so that a setting follows the network from interface to interface.
public enum NetworkIdentity: Sendable, Hashable {
    /// A Wi-Fi network, by the SSID of the association: up to 32 arbitrary bytes.
    case wifi(ssid: [UInt8])
    /// A cellular subscription: a keyed hash of the SIM's identity (or of the modem's hardware identity when the
    /// SIM cannot be read), never the identifier itself.
    case cellular(subscriber: String)
    /// A wired network, by its default gateway's link-layer address: a tether and the office LAN differ even on
    /// the same port.
    case wired(gateway: String)

    /// The identity a key stands for.
    public init(key: NetworkKey) {
        switch key.kind {
        case .wifi: self = .wifi(ssid: key.ssid ?? [])
        case .cellular: self = .cellular(subscriber: key.value)
        case .wired: self = .wired(gateway: key.value)
        }
    }

    /// The stable, lossless key the policy store files this network under.
    public var key: NetworkKey {
        switch self {
        case .wifi(let ssid): return NetworkKey(kind: .wifi, value: NetworkKey.escape(ssid))
        case .cellular(let subscriber): return NetworkKey(kind: .cellular, value: subscriber)
        case .wired(let gateway): return NetworkKey(kind: .wired, value: gateway.lowercasedIfNeeded)
        }
    }

    /// A name for people: the SSID as text when it is UTF-8 (escaped otherwise), the gateway's address, or the
    /// start of the subscriber hash.
    public var displayName: String {
        switch self {
        case .wifi(let ssid): return "Wi-Fi \"\(NetworkKey.displaySSID(ssid))\""
        case .cellular(let subscriber): return "cellular \(subscriber.prefix(12))"
        case .wired(let gateway): return "wired via \(gateway.lowercased())"
        }
    }
}
