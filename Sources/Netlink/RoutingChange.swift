// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import PathModel

/// What a batch of notifications may have changed in the kernel's routing decisions. A route can only change the
/// decision for destinations its prefix covers, so a storm of host routes leaves the internet's route alone and
/// costs no look-up; links, addresses, rules and nexthops can change any decision.
struct RoutingChange {
    /// A message that may change any decision arrived (or too many routes to keep apart).
    private(set) var isEverything = false
    /// An address message arrived: it may change any decision if it changed the address as the model keeps it,
    /// which the route follower finds out (`includeEverything()`); renewed lifetimes change none.
    private(set) var addressesMayMove = false
    /// The families whose default route came or went (or whose gateway's neighbour entry changed): every
    /// destination of the family. Two bits, where a prefix of length 0 in `prefixes` was an array made for every
    /// default route's flip.
    private var families = AddressFamilies()
    /// The prefixes, longer than 0, of the routes that came and went.
    private var prefixes: [(address: IPAddress, length: Int)] = []

    /// The IPv6 routes that came with an expiry (`expires N`, a router advertisement's lifetime): the kernel stops
    /// using them at that instant without a message, so the follower asks again then.
    private(set) var expiries: [RouteExpiry] = []

    /// The unicast IP neighbour entries that changed, with their state: the kernel picks among IPv6 routers, and
    /// among an IPv4 multipath route's legs with `fib_multipath_use_neigh`, by their neighbour entries, without a
    /// route message. The follower keeps those of gateways.
    private(set) var neighbours: [NeighbourNote] = []
    /// More neighbour entries changed in the batch than are noted one by one.
    private(set) var neighboursOverflowed = false

    /// Past this many neighbour entries in one batch (a LAN waking up), any gateway's may have changed.
    static let maximumNeighbours = 1024

    /// Past this many routes in one batch, checking each query against each prefix costs more than asking again.
    static let maximumPrefixes = 64

    var isEmpty: Bool { !isEverything && families.isEmpty && prefixes.isEmpty }

    init() {}

    /// A change of one route's prefix (for tests and callers that know it already).
    init(prefix: [UInt8], length: Int) {
        append(prefix, length: length)
    }

    /// A change that may alter the decisions of these families.
    init(families: AddressFamilies) {
        for family in families { include(family) }
    }

    /// Neighbour entries that changed (for tests and callers that know them already).
    init(neighbours: [NeighbourNote]) {
        self.neighbours = neighbours
    }

    /// An address message's change (for tests and callers that know it already).
    static var addressMessage: RoutingChange {
        var change = RoutingChange()
        change.addressesMayMove = true
        return change
    }

    /// A change of the routes with these prefixes.
    init(prefixes: some Sequence<(address: IPAddress, length: Int)>) {
        for prefix in prefixes {
            guard !isEverything else { break }
            append(prefix.address.bytes, length: prefix.length)
        }
    }

    /// A change that may alter any decision.
    static var everything: RoutingChange {
        var change = RoutingChange()
        change.everything()
        return change
    }

    /// Notes one rtnetlink message: RTM_NEW/DELROUTE by its destination prefix; links, addresses, rules and
    /// nexthops as able to change anything; other messages (neighbours) not at all.
    mutating func note(_ header: UnsafeMutablePointer<nlmsghdr>) {
        switch Int32(header.pointee.nlmsg_type) {
        case Int32(RTM_NEWROUTE), Int32(RTM_DELROUTE):
            noteRoute(header)
        case Int32(RTM_NEWNEIGH), Int32(RTM_DELNEIGH):
            noteNeighbour(header)
        case Int32(RTM_NEWADDR), Int32(RTM_DELADDR):
            addressesMayMove = true
        case Int32(RTM_NEWLINK), Int32(RTM_DELLINK), Int32(RTM_NEWRULE), Int32(RTM_DELRULE), Int32(RTM_NEWNEXTHOP),
            Int32(RTM_DELNEXTHOP):
            isEverything = true
        default:
            break
        }
    }

    private mutating func noteNeighbour(_ header: UnsafeMutablePointer<nlmsghdr>) {
        guard !neighboursOverflowed, let gateway = NeighbourConversion.key(of: header),
            let entry = KernelMessage.payload(of: header, as: ndmsg.self)
        else { return }
        guard neighbours.count < Self.maximumNeighbours else {
            neighbours = []
            neighboursOverflowed = true
            return
        }
        let removed = header.pointee.nlmsg_type == UInt16(RTM_DELNEIGH)
        neighbours.append(
            NeighbourNote(
                gateway: gateway, reachability: removed ? .absent : NeighbourReachability(state: entry.ndm_state)))
    }

    /// Notes that the decisions of one family may have changed (a gateway's neighbour entry did).
    mutating func include(_ family: AddressFamily) {
        append(family == .ipv4 ? Self.defaultIPv4 : Self.defaultIPv6, length: 0)
    }

    /// A default route's prefix bytes, made once: every flip of a default route notes one.
    private static let defaultIPv4 = [UInt8](repeating: 0, count: 4)
    private static let defaultIPv6 = [UInt8](repeating: 0, count: 16)
    private static let anyIPv4 = IPAddress(bytes: defaultIPv4)!
    private static let anyIPv6 = IPAddress(bytes: defaultIPv6)!

    private mutating func noteRoute(_ header: UnsafeMutablePointer<nlmsghdr>) {
        if header.pointee.nlmsg_type == UInt16(RTM_NEWROUTE), let expiry = RouteExpiry(header) {
            expiries.append(expiry)
            // A storm of expiring routes: the earliest of them, for every IPv6 destination, is enough.
            if expiries.count > Self.maximumPrefixes { expiries = [RouteExpiry.earliest(of: expiries)] }
        }
        guard !isEverything else { return }
        guard let route = KernelMessage.payload(of: header, as: rtmsg.self) else { return everything() }
        let length = Int(route.rtm_dst_len)
        guard length > 0 else {
            // A default route covers every destination of its own family only: a flip of the IPv4 default must
            // not re-ask the IPv6 queries.
            switch Int32(route.rtm_family) {
            case AF_INET: return append(Self.defaultIPv4, length: 0)
            case AF_INET6: return append(Self.defaultIPv6, length: 0)
            default: return everything()
            }
        }
        guard let attribute = nlmsg_find_attr(header, Int32(MemoryLayout<rtmsg>.size), Int32(RTA_DST.rawValue)),
            nla_len(attribute) * 8 >= length
        else { return everything() }
        let bytes = Array(UnsafeRawBufferPointer(start: nla_data(attribute), count: Int(nla_len(attribute))))
        append(bytes, length: length)
    }

    private mutating func append(_ bytes: [UInt8], length: Int) {
        guard let address = IPAddress(bytes: bytes) else { return everything() }
        guard length > 0 else {
            families.insert(address.family)
            return
        }
        guard prefixes.count < Self.maximumPrefixes else { return everything() }
        prefixes.append((address, length))
    }

    private mutating func everything() {
        isEverything = true
        families = []
        prefixes = []
    }

    /// Notes that any decision may have changed (an address message changed the model's addresses).
    mutating func includeEverything() { everything() }

    /// Whether the decision for `destination` may have changed.
    func affects(_ destination: IPAddress) -> Bool {
        isEverything || families.contains(destination.family)
            || prefixes.contains { destination.hasPrefix($0.address, length: $0.length) }
    }

    /// The positions, ascending, of the queries whose destination a prefix of the change covers, in `queries`
    /// sorted by destination (as `RouteQuery.byPeer` sorts); nil for a change of everything. A prefix covers one
    /// run of such a list, found by bisection: a host route among a thousand flows' queries looks at a few of them,
    /// not at each.
    func coveredPositions(inDestinationOrder queries: [RouteQuery]) -> [Int]? {
        guard !isEverything else { return nil }
        var positions: [Int] = []
        func cover(_ address: IPAddress, length: Int) {
            let network = address.network(prefixLength: length)
            var low = 0
            var high = queries.count
            while low < high {
                let middle = (low + high) / 2
                if queries[middle].destination < network { low = middle + 1 } else { high = middle }
            }
            while low < queries.count && queries[low].destination.hasPrefix(address, length: length) {
                positions.append(low)
                low += 1
            }
        }
        for family in families { cover(family == .ipv4 ? Self.anyIPv4 : Self.anyIPv6, length: 0) }
        for (address, length) in prefixes { cover(address, length: length) }
        // Prefixes may overlap (a /24 and a host route in it): each position once, in order.
        if families.count + prefixes.count > 1 { positions = Array(Set(positions)).sorted() }
        return positions
    }
}

/// When a route stops being used: its prefix, and its remaining lifetime as the kernel reported it (RTA_CACHEINFO's
/// `rta_expires`, in clock ticks of 1/100 s, rounded down). Only IPv6 routes expire (IPv4 ignores `expires`).
struct RouteExpiry: Equatable {
    var address: IPAddress
    var length: Int
    /// Hundredths of a second left when the message was written; positive.
    var centiseconds: Int32

    init(address: IPAddress, length: Int, centiseconds: Int32) {
        self.address = address
        self.length = length
        self.centiseconds = centiseconds
    }

    /// One expiry that stands for many: the earliest instant, for every IPv6 destination.
    static func earliest(of expiries: [RouteExpiry]) -> RouteExpiry {
        RouteExpiry(
            address: IPAddress(bytes: [UInt8](repeating: 0, count: 16))!,  // 16 bytes: an IPv6 address
            length: 0, centiseconds: expiries.map(\.centiseconds).min() ?? 0)
    }

    /// The expiry an IPv6 route message carries, if it has one still ahead.
    init?(_ header: UnsafeMutablePointer<nlmsghdr>) {
        guard let route = KernelMessage.payload(of: header, as: rtmsg.self), route.rtm_family == UInt8(AF_INET6),
            let attribute = nlmsg_find_attr(
                header, Int32(MemoryLayout<rtmsg>.size), Int32(RTA_CACHEINFO.rawValue)),
            nla_len(attribute) >= Int32(MemoryLayout<rta_cacheinfo>.size)
        else { return nil }
        let expires = nla_data(attribute).loadUnaligned(as: rta_cacheinfo.self).rta_expires
        guard expires > 0 else { return nil }
        var prefix = [UInt8](repeating: 0, count: 16)
        let length = Int(route.rtm_dst_len)
        if length > 0,
            let destination = nlmsg_find_attr(header, Int32(MemoryLayout<rtmsg>.size), Int32(RTA_DST.rawValue)),
            nla_len(destination) == 16
        {
            prefix = Array(UnsafeRawBufferPointer(start: nla_data(destination), count: 16))
        }
        guard let address = IPAddress(bytes: prefix) else { return nil }
        self.init(address: address, length: length, centiseconds: expires)
    }
}

/// One neighbour entry as a notification left it.
struct NeighbourNote: Equatable {
    var gateway: GatewayKey
    var reachability: NeighbourReachability
}

/// What the kernel's route selection makes of a neighbour entry. IPv6 router selection (with router preference)
/// skips a router whose entry is FAILED and takes any other; IPv4 multipath with `fib_multipath_use_neigh` takes a
/// leg with no entry or a valid one and skips the rest. Moves between these change a decision; moves within one
/// (REACHABLE, STALE, DELAY, PROBE, as traffic comes and goes) do not, and ask nothing.
enum NeighbourReachability: Equatable {
    /// No entry.
    case absent
    /// A link-layer address the kernel uses (REACHABLE, STALE, DELAY, PROBE, PERMANENT).
    case valid
    /// Resolution failed.
    case failed
    /// Being resolved, or no state (INCOMPLETE, NONE).
    case pending

    init(state: UInt16) {
        let valid = UInt16(NUD_PERMANENT | NUD_NOARP | NUD_REACHABLE | NUD_PROBE | NUD_STALE | NUD_DELAY)
        if state & valid != 0 {
            self = .valid
        } else if state & UInt16(NUD_FAILED) != 0 {
            self = .failed
        } else {
            self = .pending
        }
    }
}
