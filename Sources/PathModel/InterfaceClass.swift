/// What an interface is, for path purposes: its kind and whether traffic over it costs the user.
public struct InterfaceClass: Sendable, Hashable {
    /// Wired, Wi-Fi, cellular, loopback or other.
    public var kind: InterfaceKind
    /// Traffic is metered or otherwise costly: cellular, phone tethering, or configured so.
    public var isExpensive: Bool
    /// A VPN or tunnel (WireGuard, tun/tap, PPP, GRE/IPIP/SIT, XFRM): its traffic rides on another interface,
    /// whose cost it inherits.
    public var isTunnel: Bool

    public init(kind: InterfaceKind, isExpensive: Bool, isTunnel: Bool = false) {
        self.kind = kind
        self.isExpensive = isExpensive
        self.isTunnel = isTunnel
    }
}
