// SPDX-License-Identifier: Apache-2.0
/// A question for the kernel's routing decision: where would the next packet to `destination` go, as
/// `ip route get DESTINATION [from SOURCE] [mark MARK]` asks it. The kernel's answer follows the routing rules
/// (priorities, `not`, fwmark, `suppress_prefixlength`), every table, metrics, split defaults, blocking routes and
/// nexthop objects, so pathmond asks instead of modelling all of that.
public struct RouteQuery: Sendable, Hashable {
    /// Where the packet goes.
    public let destination: IPAddress
    /// The packet's source address, when it has one already (a flow's local address): rules may select on it.
    public let source: IPAddress?
    /// The packet's firewall mark: a tunnel's own packets carry one (WireGuard's fwmark) that rules select on.
    public let mark: UInt32?
    /// The user whose packet it is (RTA_UID: `uidrange` rules select on it); nil: the asking process's own, as a
    /// request without RTA_UID means.
    public let uid: UInt32?
    /// The interface the packet must leave by, by index (RTA_OIF): a socket bound to a device (SO_BINDTODEVICE)
    /// holds the device's index, so the query does too, and a rename changes nothing. No such interface: the packet
    /// goes nowhere. IPv4 routes such a packet only over that device's routes; IPv6 does only when the query has no
    /// source (`Flow.boundRouteQuery`).
    public let outputInterfaceIndex: Int32?
    /// The fields' hash, taken once when the query is made (the fields are constants): the decision tables look a
    /// query up six to eight times for each answer on every change, and hashing the fields anew each time was a
    /// third of a watched flow's instructions. Seeded per process like every `Hasher`, so a client cannot choose
    /// flows that collide.
    private let fingerprint: Int

    public init(
        destination: IPAddress, source: IPAddress? = nil, mark: UInt32? = nil, uid: UInt32? = nil,
        outputInterfaceIndex: Int32? = nil
    ) {
        self.destination = destination
        self.source = source
        self.mark = mark
        self.uid = uid
        self.outputInterfaceIndex = outputInterfaceIndex
        var hasher = Hasher()
        hasher.combine(destination)
        hasher.combine(uid.map { UInt64($0) } ?? .max)
        if let source { hasher.combine(source) }
        if let mark { hasher.combine(mark) }
        if let outputInterfaceIndex { hasher.combine(outputInterfaceIndex) }
        fingerprint = hasher.finalize()
    }

    /// Whose routing the system path (and what follows it: gates, the GIO module's metered flag) describes: root's,
    /// whatever user pathmond runs as, so that a `uidrange` rule for pathmond's own user bends nothing.
    public static let systemUser: UInt32 = 0

    /// One word: the fingerprint of the fields (the destination and user, then only the fields a query has).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(fingerprint)
    }

    /// What a Set or Dictionary hashes a query by: the fingerprint, already a hash of the fields under the
    /// process's secret seed, mixed with the table's own seed by a finalizer (MurmurHash3's: multiply and shift,
    /// every bit reaching every other), without running SipHash over the word again: the default did that at each
    /// look-up, 150 instructions, and a route flip looks queries up a dozen times (issue 41). The finalizer, not a
    /// bare XOR with the seed: tables of one size would then keep the same order but for a few bits, and copying
    /// one into another in that order (a filter, a union) would probe quadratically. Equal queries have equal
    /// fingerprints, so the tables' contract holds.
    public func _rawHashValue(seed: Int) -> Int {
        var word = UInt64(bitPattern: Int64(fingerprint ^ seed))
        word ^= word >> 33
        word &*= 0xff51_afd7_ed55_8ccd
        word ^= word >> 33
        word &*= 0xc4ce_b9fe_1a85_ec53
        word ^= word >> 33
        return Int(bitPattern: UInt(word))
    }

    /// Field by field, after the fingerprints: most comparisons a table makes are of different queries.
    public static func == (lhs: RouteQuery, rhs: RouteQuery) -> Bool {
        lhs.fingerprint == rhs.fingerprint && lhs.destination == rhs.destination && lhs.uid == rhs.uid
            && lhs.source == rhs.source && lhs.mark == rhs.mark && lhs.outputInterfaceIndex == rhs.outputInterfaceIndex
    }

    /// The stand-in for "the internet" of one family: a public anycast DNS resolver (1.1.1.1,
    /// 2606:4700:4700::1111). It is where an app's first packet often goes, it is global unicast in no private,
    /// special-purpose or documentation range that a LAN, a VPN's split routes or a test would route on its own,
    /// and it is what people type into `ip route get`; only default-like routes (a default, a split default) cover
    /// it. No packet is ever sent to it: the kernel is only asked where one would go.
    public static func internet(_ family: AddressFamily) -> RouteQuery {
        internetProbes(family)[0]
    }
}

extension RouteQuery {
    /// The stand-ins for "the internet" of one family, `internet(_:)` first: one address is not the internet (a
    /// host route for it, `ip addr add 1.1.1.1/32 dev lo`, `blackhole 1.0.0.0/8`, a `to 1.1.1.0/24` rule or a VPN's
    /// `throw 1.0.0.0/8` bend it alone). Four global unicast addresses in no private, special-purpose or
    /// documentation range, spread over the space: IPv4 two in each half of a split default (1.1.1.1 and 9.9.9.9
    /// in 0.0.0.0/1, 149.112.112.112 and 208.67.222.222 in 128.0.0.0/1); IPv6 in four allocations of 2000::/3
    /// (2606:4700:4700::1111, 2001:4860:4860::8888, 2620:fe::fe, 2a00:1450:4001::1). Nothing is ever sent to
    /// them. `KernelChoice` reads their answers by majority. Asked as `user`, `systemUser` for the system path.
    public static func internetProbes(_ family: AddressFamily, user: UInt32 = systemUser) -> [RouteQuery] {
        if user == systemUser { return systemProbes[family == .ipv4 ? 0 : 1] }
        return internetProbeAddresses[family == .ipv4 ? 0 : 1].map { RouteQuery(destination: $0, uid: user) }
    }

    /// The system's, made once: every change reads them.
    private static let systemProbes = internetProbeAddresses.map { addresses in
        addresses.map { RouteQuery(destination: $0, uid: systemUser) }
    }

    /// An order that keeps the queries to one peer together: by destination, then user, then the query without a
    /// source (a new connection's) before those with one.
    public static func byPeer(_ first: RouteQuery, _ second: RouteQuery) -> Bool {
        if first.destination != second.destination { return first.destination < second.destination }
        if first.uid != second.uid { return (first.uid ?? 0) < (second.uid ?? 0) }
        switch (first.source, second.source) {
        case (nil, .some): return true
        case (.some(let one), .some(let other)): return one < other
        default: return false
        }
    }

    /// Whether the query is one of the internet's probes (as any user): what a path needs, asked before flows.
    /// Four addresses a family, compared rather than hashed: every flow's answer is checked.
    public static func isInternetProbe(_ query: RouteQuery) -> Bool {
        query.source == nil && query.mark == nil && query.outputInterfaceIndex == nil
            && internetProbeAddresses[query.destination.family == .ipv4 ? 0 : 1].contains(query.destination)
    }

    /// Both families' probes, as `user`: asked beside the system's while a client of that user watches its path.
    public static func internetProbes(user: UInt32) -> [RouteQuery] {
        internetProbes(.ipv4, user: user) + internetProbes(.ipv6, user: user)
    }

    /// Built once: asked after every change that covers them. Written as text, as documented: written as bytes,
    /// the first IPv6 probe had lost a byte and was 2606:4700:4700::11, which a multipath route may hash onto
    /// another leg than the documented address (issue 40).
    private static let internetProbeAddresses: [[IPAddress]] = [
        ["1.1.1.1", "9.9.9.9", "149.112.112.112", "208.67.222.222"].map { IPAddress($0)! },
        ["2606:4700:4700::1111", "2001:4860:4860::8888", "2620:fe::fe", "2a00:1450:4001::1"].map { IPAddress($0)! },
    ]  // canonical text of addresses: each parses
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
