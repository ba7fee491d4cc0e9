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
        let routes = defaultRoutes(from: parsed, header: route)
        guard !routes.isEmpty else {
            // A route over a nexthop object without the compatibility attributes (nexthop_compat_mode=0) names
            // only RTA_NH_ID: well-formed, and followed through the kernel's own routing decision instead.
            let nexthopID = nlmsg_find_attr(header, Int32(MemoryLayout<rtmsg>.size), Int32(RTA_NH_ID.rawValue))
            return nexthopID == nil ? .malformed : .notRelevant
        }
        return .converted(routes.map { removed ? .routeRemoved($0) : .routeAdded($0, replacing: replacing) })
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
        let highByte = route.rtm_dst_len == 0 ? 0 : KernelMessage.bytes(of: rtnl_route_get_dst(parsed))?.first ?? 0
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
        let highByte = header.rtm_dst_len == 0 ? 0 : KernelMessage.bytes(of: rtnl_route_get_dst(object))?.first ?? 0
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
