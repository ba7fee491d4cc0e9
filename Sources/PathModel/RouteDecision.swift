/// A question for the kernel's routing decision: where would the next packet to `destination` go, as
/// `ip route get DESTINATION [from SOURCE] [mark MARK]` asks it. The kernel's answer follows the routing rules
/// (priorities, `not`, fwmark, `suppress_prefixlength`), every table, metrics, split defaults, blocking routes and
/// nexthop objects, so pathmond asks instead of modelling all of that.
public struct RouteQuery: Sendable, Hashable {
    /// Where the packet goes.
    public var destination: IPAddress
    /// The packet's source address, when it has one already (a flow's local address): rules may select on it.
    public var source: IPAddress?
    /// The packet's firewall mark: a tunnel's own packets carry one (WireGuard's fwmark) that rules select on.
    public var mark: UInt32?

    public init(destination: IPAddress, source: IPAddress? = nil, mark: UInt32? = nil) {
        self.destination = destination
        self.source = source
        self.mark = mark
    }

    /// The stand-in for "the internet" of one family: a public anycast DNS resolver (1.1.1.1,
    /// 2606:4700:4700::1111). It is where an app's first packet often goes, it is global unicast in no private,
    /// special-purpose or documentation range that a LAN, a VPN's split routes or a test would route on its own,
    /// and it is what people type into `ip route get`; only default-like routes (a default, a split default) cover
    /// it. No packet is ever sent to it: the kernel is only asked where one would go.
    public static func internet(_ family: AddressFamily) -> RouteQuery {
        switch family {
        case .ipv4: return RouteQuery(destination: IPAddress(bytes: [1, 1, 1, 1])!)  // four bytes: IPv4
        case .ipv6:
            return RouteQuery(
                destination: IPAddress(
                    bytes: [0x26, 0x06, 0x47, 0, 0x47, 0] + [UInt8](repeating: 0, count: 9) + [0x11])!)
        }
    }
}

/// The kernel's answer to a `RouteQuery`.
public enum RouteDecision: Sendable, Hashable {
    /// The packet leaves through this interface (to this next hop, if it is not on link).
    case via(interfaceIndex: Int32, gateway: IPAddress?)
    /// The packet goes nowhere: no route (ENETUNREACH), or a blocking route (unreachable, prohibit, blackhole) or
    /// rule that refuses or drops it.
    case unroutable

    /// The outgoing interface, if the packet leaves at all.
    public var interfaceIndex: Int32? {
        if case .via(let index, _) = self { return index }
        return nil
    }
}
