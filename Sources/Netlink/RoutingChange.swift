internal import CNetlink
import PathModel

/// What a batch of notifications may have changed in the kernel's routing decisions. A route can only change the
/// decision for destinations its prefix covers, so a storm of host routes leaves the internet's route alone and
/// costs no look-up; links, addresses, rules and nexthops can change any decision.
struct RoutingChange {
    /// A message that may change any decision arrived (or too many routes to keep apart).
    private(set) var isEverything = false
    /// The prefixes of the routes that came and went.
    private(set) var prefixes: [(address: IPAddress, length: Int)] = []

    /// The IPv6 routes that came with an expiry (`expires N`, a router advertisement's lifetime): the kernel stops
    /// using them at that instant without a message, so the follower asks again then.
    private(set) var expiries: [RouteExpiry] = []

    /// Past this many routes in one batch, checking each query against each prefix costs more than asking again.
    static let maximumPrefixes = 64

    var isEmpty: Bool { !isEverything && prefixes.isEmpty }

    init() {}

    /// A change of one route's prefix (for tests and callers that know it already).
    init(prefix: [UInt8], length: Int) {
        append(prefix, length: length)
    }

    /// A change of the routes with these prefixes.
    init(prefixes: some Sequence<(address: IPAddress, length: Int)>) {
        for prefix in prefixes {
            guard !isEverything else { break }
            append((0..<prefix.address.byteCount).map { prefix.address[byte: $0] }, length: prefix.length)
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
        case Int32(RTM_NEWLINK), Int32(RTM_DELLINK), Int32(RTM_NEWADDR), Int32(RTM_DELADDR),
            Int32(RTM_NEWRULE), Int32(RTM_DELRULE), Int32(RTM_NEWNEXTHOP), Int32(RTM_DELNEXTHOP):
            isEverything = true
        default:
            break
        }
    }

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
            case AF_INET: return append([UInt8](repeating: 0, count: 4), length: 0)
            case AF_INET6: return append([UInt8](repeating: 0, count: 16), length: 0)
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
        guard prefixes.count < Self.maximumPrefixes, let address = IPAddress(bytes: bytes) else { return everything() }
        prefixes.append((address, length))
    }

    private mutating func everything() {
        isEverything = true
        prefixes = []
    }

    /// Whether the decision for `destination` may have changed.
    func affects(_ destination: IPAddress) -> Bool {
        isEverything || prefixes.contains { destination.hasPrefix($0.address, length: $0.length) }
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
