// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import Glibc
import PathModel

/// RTM_NEWROUTE / RTM_DELROUTE → `.routeAdded` / `.routeRemoved`, for default routes only.
///
/// The fixed rtmsg header decides relevance before anything is parsed, so a storm of host routes costs a header
/// read each. A default route's attributes are read with libnl's attribute parser, in one pass into a table (and
/// each RTA_MULTIPATH next hop's into a small one), not with its route object parser: that one allocated the route,
/// each next hop and each address, 4,000 instructions of every route flip before the subscribers hear of it (issue
/// 41). libnl's route parser stays the tests' oracle (`RouteConversionTests`).
enum RouteConversion {
    /// RTA_MAX as these headers know it (a macro the importer does not bring in): a newer kernel's attributes past
    /// it are left out of the table, and none of them is read.
    private static let routeAttributeMax = Int32(__RTA_MAX.rawValue) - 1

    static func events(from header: UnsafeMutablePointer<nlmsghdr>, removed: Bool) -> KernelMessage.Conversion {
        guard let route = KernelMessage.payload(of: header, as: rtmsg.self) else { return .malformed }
        let replacing = Int32(header.pointee.nlmsg_flags) & NLM_F_REPLACE != 0
        let clearsSlot = !removed && replacing && isBlockingDefaultRoute(route)
        guard clearsSlot || isDefaultRouteCandidate(route) else { return .notRelevant }
        return withUnsafeTemporaryAllocation(
            of: UnsafeMutablePointer<nlattr>?.self, capacity: Int(routeAttributeMax) + 1
        ) { table in
            table.initialize(repeating: nil)
            guard nlmsg_parse(header, Int32(MemoryLayout<rtmsg>.size), table.baseAddress!, routeAttributeMax, nil) >= 0
            else { return .malformed }
            let slot = Slot(route, attributes: table)
            if clearsSlot {
                // An unreachable, blackhole or prohibit route took the slot over: a route with no interface.
                return .converted(.routeSlotCleared(slot.route(interfaceIndex: 0)))
            }
            if let nexthopID = u32(table[Int(RTA_NH_ID.rawValue)]) {
                // A route over a nexthop object: resolved through the nexthops the model keeps, never through the
                // compatibility attributes (RTA_OIF, RTA_MULTIPATH), which nexthop_compat_mode=0 leaves out and
                // which go stale without a word when a nexthop changes.
                let unresolved = slot.route(interfaceIndex: 0, nexthopID: nexthopID)
                return .converted(removed ? .routeRemoved(unresolved) : .routeAdded(unresolved, replacing: replacing))
            }
            let event = { (route: DefaultRoute) in
                removed ? KernelEvent.routeRemoved(route) : .routeAdded(route, replacing: replacing)
            }
            guard let multipath = table[Int(RTA_MULTIPATH.rawValue)] else {
                guard let route = singleHop(slot, attributes: table) else { return .malformed }
                return .converted(event(route))
            }
            guard let routes = hops(slot, multipath: multipath), !routes.isEmpty else { return .malformed }
            return .convertedHops(routes.map(event))
        }
    }

    /// What every next hop of a route shares: its family, table, prefix, destination and metric.
    private struct Slot {
        let family: AddressFamily
        let table: UInt32
        let prefixLength: UInt8
        /// The destination's first byte (0 for a default route), which tells the halves of a split default apart.
        let destinationHighByte: UInt8
        let metric: UInt32

        init(_ route: rtmsg, attributes: UnsafeMutableBufferPointer<UnsafeMutablePointer<nlattr>?>) {
            family = route.rtm_family == UInt8(AF_INET) ? .ipv4 : .ipv6
            // RTA_TABLE holds table ids past 255, which rtm_table cannot.
            table = RouteConversion.u32(attributes[Int(RTA_TABLE.rawValue)]) ?? UInt32(route.rtm_table)
            prefixLength = route.rtm_dst_len
            var highByte: UInt8 = 0
            if route.rtm_dst_len > 0, let destination = attributes[Int(RTA_DST.rawValue)], nla_len(destination) > 0 {
                highByte = nla_data(destination).load(as: UInt8.self)
            }
            destinationHighByte = highByte
            metric = RouteConversion.u32(attributes[Int(RTA_PRIORITY.rawValue)]) ?? 0
        }

        func route(
            interfaceIndex: Int32, gateway: IPAddress? = nil, isMultipath: Bool = false, nexthopID: UInt32? = nil
        ) -> DefaultRoute {
            DefaultRoute(
                family: family, table: table, prefixLength: prefixLength, destinationHighByte: destinationHighByte,
                metric: metric, interfaceIndex: interfaceIndex, gateway: gateway, isMultipath: isMultipath,
                nexthopID: nexthopID)
        }
    }

    /// The route of a single next hop, which RTA_OIF, RTA_GATEWAY and RTA_VIA describe; nil without an interface.
    private static func singleHop(
        _ slot: Slot, attributes: UnsafeMutableBufferPointer<UnsafeMutablePointer<nlattr>?>
    ) -> DefaultRoute? {
        let interfaceIndex = u32(attributes[Int(RTA_OIF.rawValue)]).map { Int32(bitPattern: $0) } ?? 0
        guard interfaceIndex > 0 else { return nil }
        let gateway = self.gateway(attributes[Int(RTA_GATEWAY.rawValue)], via: attributes[Int(RTA_VIA.rawValue)])
        return slot.route(interfaceIndex: interfaceIndex, gateway: gateway)
    }

    /// A multipath route's next hops (RTA_MULTIPATH), those with an interface; nil if the attribute is malformed.
    private static func hops(_ slot: Slot, multipath: UnsafeMutablePointer<nlattr>) -> [DefaultRoute]? {
        // struct rtnexthop (length, flags, hops, interface index), then its own attributes, each aligned to 4.
        var hops: [(interfaceIndex: Int32, gateway: IPAddress?)] = []
        var rest = UnsafeMutableRawBufferPointer(start: nla_data(multipath), count: Int(nla_len(multipath)))
        let headerSize = MemoryLayout<rtnexthop>.size
        while rest.count >= headerSize {
            let hop = rest.loadUnaligned(as: rtnexthop.self)
            let length = Int(hop.rtnh_len)
            guard length >= headerSize, length <= rest.count else { return nil }
            var gateway: IPAddress?
            if length > headerSize {
                let parsed = withUnsafeTemporaryAllocation(
                    of: UnsafeMutablePointer<nlattr>?.self, capacity: Int(routeAttributeMax) + 1
                ) { nested -> Bool in
                    nested.initialize(repeating: nil)
                    let start = (rest.baseAddress! + headerSize).assumingMemoryBound(to: nlattr.self)
                    guard nla_parse(nested.baseAddress!, routeAttributeMax, start, Int32(length - headerSize), nil) >= 0
                    else { return false }
                    gateway = self.gateway(nested[Int(RTA_GATEWAY.rawValue)], via: nested[Int(RTA_VIA.rawValue)])
                    return true
                }
                guard parsed else { return nil }
            }
            hops.append((hop.rtnh_ifindex, gateway))
            let aligned = (length + 3) & ~3
            rest =
                aligned < rest.count
                ? UnsafeMutableRawBufferPointer(rebasing: rest[aligned...]) : .init(start: nil, count: 0)
        }
        return hops.compactMap { hop in
            hop.interfaceIndex > 0
                ? slot.route(interfaceIndex: hop.interfaceIndex, gateway: hop.gateway, isMultipath: hops.count > 1)
                : nil
        }
    }

    /// RTA_GATEWAY's address, or else RTA_VIA's (a gateway of the other family: an IPv4 route via an IPv6
    /// neighbour), after its two bytes of family.
    private static func gateway(_ gateway: UnsafeMutablePointer<nlattr>?, via: UnsafeMutablePointer<nlattr>?)
        -> IPAddress?
    {
        if let gateway, nla_len(gateway) > 0 {
            return IPAddress(bytes: UnsafeRawBufferPointer(start: nla_data(gateway), count: Int(nla_len(gateway))))
        }
        guard let via, nla_len(via) > 2 else { return nil }
        return IPAddress(bytes: UnsafeRawBufferPointer(start: nla_data(via) + 2, count: Int(nla_len(via)) - 2))
    }

    /// A u32 attribute's value; nil when absent or shorter.
    private static func u32(_ attribute: UnsafeMutablePointer<nlattr>?) -> UInt32? {
        guard let attribute, nla_len(attribute) >= 4 else { return nil }
        return nla_get_u32(attribute)
    }

    /// An unreachable, blackhole or prohibit route at a default route's prefix: it replaces, it never carries.
    static func isBlockingDefaultRoute(_ route: rtmsg) -> Bool {
        (route.rtm_family == UInt8(AF_INET) || route.rtm_family == UInt8(AF_INET6))
            && route.rtm_dst_len <= DefaultRoute.maximumPrefixLength
            && [UInt8(RTN_UNREACHABLE), UInt8(RTN_BLACKHOLE), UInt8(RTN_PROHIBIT)].contains(route.rtm_type)
    }

    /// Unicast IPv4/IPv6 routes with a prefix of at most /1, not clones from the route cache.
    static func isDefaultRouteCandidate(_ route: rtmsg) -> Bool {
        (route.rtm_family == UInt8(AF_INET) || route.rtm_family == UInt8(AF_INET6))
            && route.rtm_dst_len <= DefaultRoute.maximumPrefixLength
            && route.rtm_type == UInt8(RTN_UNICAST)
            && route.rtm_flags & UInt32(RTM_F_CLONED) == 0
    }
}
