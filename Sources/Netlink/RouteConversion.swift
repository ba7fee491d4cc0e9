// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import Glibc
import PathModel

/// RTM_NEWROUTE / RTM_DELROUTE → `.routeAdded` / `.routeRemoved`, for default routes only.
///
/// The fixed rtmsg header decides relevance before anything is parsed, so a storm of host routes costs a header
/// read each; only default routes reach libnl's parser.
enum RouteConversion {
    static func events(from header: UnsafeMutablePointer<nlmsghdr>, removed: Bool) -> KernelMessage.Conversion {
        guard let route = KernelMessage.payload(of: header, as: rtmsg.self) else { return .malformed }
        let replacing = Int32(header.pointee.nlmsg_flags) & NLM_F_REPLACE != 0
        if !removed && replacing && isBlockingDefaultRoute(route) {
            return clearedSlot(header, route)
        }
        guard isDefaultRouteCandidate(route) else { return .notRelevant }
        var parsed: OpaquePointer?
        let result = rtnl_route_parse(header, &parsed)
        guard result >= 0, let parsed else { return .malformed }
        defer { rtnl_route_put(parsed) }
        if let nexthopID = nexthopID(of: header) {
            // A route over a nexthop object: resolved through the nexthops the model keeps, never through the
            // compatibility attributes (RTA_OIF, RTA_MULTIPATH), which nexthop_compat_mode=0 leaves out and which
            // go stale without a word when a nexthop changes.
            let unresolved = DefaultRoute(
                family: route.rtm_family == UInt8(AF_INET) ? .ipv4 : .ipv6, table: rtnl_route_get_table(parsed),
                prefixLength: route.rtm_dst_len, destinationHighByte: highByte(of: parsed, route),
                metric: rtnl_route_get_priority(parsed), interfaceIndex: 0, nexthopID: nexthopID)
            return .converted([removed ? .routeRemoved(unresolved) : .routeAdded(unresolved, replacing: replacing)])
        }
        let routes = defaultRoutes(from: parsed, header: route)
        guard !routes.isEmpty else { return .malformed }
        return .converted(routes.map { removed ? .routeRemoved($0) : .routeAdded($0, replacing: replacing) })
    }

    /// The route's RTA_NH_ID, if it names a nexthop object.
    static func nexthopID(of header: UnsafeMutablePointer<nlmsghdr>) -> UInt32? {
        guard let attribute = nlmsg_find_attr(header, Int32(MemoryLayout<rtmsg>.size), Int32(RTA_NH_ID.rawValue)),
            nla_len(attribute) >= 4
        else { return nil }
        return nla_get_u32(attribute)
    }

    /// The destination's first byte (0 for a default route), which tells the halves of a split default apart.
    private static func highByte(of object: OpaquePointer, _ header: rtmsg) -> UInt8 {
        header.rtm_dst_len == 0 ? 0 : KernelMessage.bytes(of: rtnl_route_get_dst(object))?.first ?? 0
    }

    /// An unreachable, blackhole or prohibit route at a default route's prefix: it replaces, it never carries.
    static func isBlockingDefaultRoute(_ route: rtmsg) -> Bool {
        (route.rtm_family == UInt8(AF_INET) || route.rtm_family == UInt8(AF_INET6))
            && route.rtm_dst_len <= DefaultRoute.maximumPrefixLength
            && [UInt8(RTN_UNREACHABLE), UInt8(RTN_BLACKHOLE), UInt8(RTN_PROHIBIT)].contains(route.rtm_type)
    }

    /// The slot a blocking route took over, as a route with no interface.
    private static func clearedSlot(_ header: UnsafeMutablePointer<nlmsghdr>, _ route: rtmsg)
        -> KernelMessage.Conversion
    {
        var parsed: OpaquePointer?
        guard rtnl_route_parse(header, &parsed) >= 0, let parsed else { return .malformed }
        defer { rtnl_route_put(parsed) }
        let highByte = highByte(of: parsed, route)
        let slot = DefaultRoute(
            family: route.rtm_family == UInt8(AF_INET) ? .ipv4 : .ipv6, table: rtnl_route_get_table(parsed),
            prefixLength: route.rtm_dst_len, destinationHighByte: highByte, metric: rtnl_route_get_priority(parsed),
            interfaceIndex: 0)
        return .converted([.routeSlotCleared(slot)])
    }

    /// Unicast IPv4/IPv6 routes with a prefix of at most /1, not clones from the route cache.
    static func isDefaultRouteCandidate(_ route: rtmsg) -> Bool {
        (route.rtm_family == UInt8(AF_INET) || route.rtm_family == UInt8(AF_INET6))
            && route.rtm_dst_len <= DefaultRoute.maximumPrefixLength
            && route.rtm_type == UInt8(RTN_UNICAST)
            && route.rtm_flags & UInt32(RTM_F_CLONED) == 0
    }

    /// One value per next hop of a borrowed `struct rtnl_route *`. libnl folds RTA_OIF/RTA_GATEWAY of a single-path
    /// route into one next hop, and RTA_MULTIPATH into several.
    static func defaultRoutes(from object: OpaquePointer, header: rtmsg) -> [DefaultRoute] {
        let family: AddressFamily = header.rtm_family == UInt8(AF_INET) ? .ipv4 : .ipv6
        let highByte = highByte(of: object, header)
        var routes: [DefaultRoute] = []
        let count = rtnl_route_get_nnexthops(object)
        for position in 0..<count {
            guard let nexthop = rtnl_route_nexthop_n(object, position) else { continue }
            let interfaceIndex = rtnl_route_nh_get_ifindex(nexthop)
            guard interfaceIndex > 0 else { continue }
            // RTA_VIA carries a gateway of the other family (IPv4 routes via an IPv6 neighbour).
            let gatewayBytes =
                KernelMessage.bytes(of: rtnl_route_nh_get_gateway(nexthop))
                ?? KernelMessage.bytes(of: rtnl_route_nh_get_via(nexthop))
            routes.append(
                DefaultRoute(
                    family: family,
                    table: rtnl_route_get_table(object),
                    prefixLength: header.rtm_dst_len,
                    destinationHighByte: highByte,
                    metric: rtnl_route_get_priority(object),
                    interfaceIndex: interfaceIndex,
                    gateway: gatewayBytes.flatMap(IPAddress.init(bytes:)),
                    isMultipath: count > 1
                ))
        }
        return routes
    }
}
