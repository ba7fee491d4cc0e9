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

    /// Past this many routes in one batch, checking each query against each prefix costs more than asking again.
    static let maximumPrefixes = 64

    var isEmpty: Bool { !isEverything && prefixes.isEmpty }

    init() {}

    /// A change of one route's prefix (for tests and callers that know it already).
    init(prefix: [UInt8], length: Int) {
        append(prefix, length: length)
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
