// SPDX-License-Identifier: Apache-2.0
import CNetlink
import Glibc
import PathModel

@testable import Netlink

/// libnl's own object parsers (rtnl_link, rtnl_addr, rtnl_route, rtnl_neigh), which pathmond read links, addresses,
/// routes and neighbours with until issue 41:
/// the oracle its attribute-table readers are compared with, on the kernel's own messages.
enum LibnlObjectOracle {
    /// The link libnl's link parser reads from a message.
    static func link(_ message: [UInt8]) -> Link? {
        var link: Link?
        parse(message) { object in
            let index = rtnl_link_get_ifindex(object)
            guard index > 0, let name = rtnl_link_get_name(object) else { return }
            link = Link(
                index: index, name: String(cString: name), flags: LinkFlags(rawValue: rtnl_link_get_flags(object)),
                operState: OperState(rawValue: rtnl_link_get_operstate(object)) ?? .unknown,
                linkKind: rtnl_link_get_type(object).map { String(cString: $0) },
                hardwareType: UInt16(truncatingIfNeeded: rtnl_link_get_arptype(object)),
                hardwareAddress: KernelMessage.bytes(of: rtnl_link_get_addr(object))
                    .map(LinkConversion.hardwareAddressText))
        }
        return link
    }

    /// The address libnl's address parser reads from a message, as pathmond took it: the local address, its
    /// prefix length, scope and flags (tentative unless optimistic, or failed).
    static func address(_ message: [UInt8]) -> InterfaceAddress? {
        var address: InterfaceAddress?
        parse(message) { object in
            guard let bytes = KernelMessage.bytes(of: rtnl_addr_get_local(object)), let ip = IPAddress(bytes: bytes),
                let scope = AddressScope(rawValue: UInt8(truncatingIfNeeded: rtnl_addr_get_scope(object)))
            else { return }
            let flags = UInt32(rtnl_addr_get_flags(object))
            let optimistic = flags & UInt32(IFA_F_OPTIMISTIC) != 0
            address = InterfaceAddress(
                interfaceIndex: rtnl_addr_get_ifindex(object), address: ip,
                prefixLength: UInt8(truncatingIfNeeded: rtnl_addr_get_prefixlen(object)), scope: scope,
                isTentative: flags & UInt32(IFA_F_DADFAILED) != 0
                    || (flags & UInt32(IFA_F_TENTATIVE) != 0 && !optimistic))
        }
        return address
    }

    /// The event libnl's neighbour parser reads from a message, as pathmond took it: the entry with its link-layer
    /// address in a usable state, else its removal. nil: libnl refused it.
    static func neighbourEvent(_ message: [UInt8], removed: Bool) -> KernelEvent? {
        var event: KernelEvent?
        parse(message) { object in
            guard let bytes = KernelMessage.bytes(of: rtnl_neigh_get_dst(object)), let address = IPAddress(bytes: bytes)
            else { return }
            let index = rtnl_neigh_get_ifindex(object)
            let state = UInt16(truncatingIfNeeded: rtnl_neigh_get_state(object))
            if !removed, state & NeighbourConversion.usableStates != 0,
                let linkLayer = KernelMessage.bytes(of: rtnl_neigh_get_lladdr(object))
            {
                event = .neighbourChanged(
                    Neighbour(
                        interfaceIndex: index, address: address,
                        linkLayerAddress: LinkConversion.hardwareAddressText(linkLayer)))
            } else {
                event = .neighbourRemoved(interfaceIndex: index, address: address)
            }
        }
        return event
    }

    /// The default-route events libnl's route parser reads from a message, as pathmond took them until issue 41:
    /// the slot a blocking route cleared (with NLM_F_REPLACE), a route over a nexthop object unresolved, else one
    /// route per next hop with an interface. nil: libnl refused it, or no next hop had an interface.
    static func routeEvents(_ message: [UInt8], removed: Bool) -> [KernelEvent]? {
        var header = rtmsg()
        let replacing = message.withUnsafeBytes { bytes in
            header = bytes.loadUnaligned(fromByteOffset: 16, as: rtmsg.self)
            return Int32(bytes.loadUnaligned(fromByteOffset: 6, as: UInt16.self)) & NLM_F_REPLACE != 0
        }
        // libnl's route object has no nexthop id here: the attribute, found as pathmond found it.
        var message = message
        let nexthopID = message.withUnsafeMutableBytes { bytes -> UInt32? in
            let header = bytes.baseAddress!.assumingMemoryBound(to: nlmsghdr.self)
            guard let attribute = nlmsg_find_attr(header, Int32(MemoryLayout<rtmsg>.size), Int32(RTA_NH_ID.rawValue)),
                nla_len(attribute) >= 4
            else { return nil }
            return nla_get_u32(attribute)
        }
        var events: [KernelEvent]?
        parse(message) { object in
            let family: AddressFamily = header.rtm_family == UInt8(AF_INET) ? .ipv4 : .ipv6
            let highByte = header.rtm_dst_len == 0 ? 0 : KernelMessage.bytes(of: rtnl_route_get_dst(object))?.first ?? 0
            func route(_ index: Int32, gateway: IPAddress? = nil, multipath: Bool = false, nexthop: UInt32? = nil)
                -> DefaultRoute
            {
                DefaultRoute(
                    family: family, table: rtnl_route_get_table(object), prefixLength: header.rtm_dst_len,
                    destinationHighByte: highByte, metric: rtnl_route_get_priority(object), interfaceIndex: index,
                    gateway: gateway, isMultipath: multipath, nexthopID: nexthop)
            }
            if !removed && replacing && RouteConversion.isBlockingDefaultRoute(header) {
                events = [.routeSlotCleared(route(0))]
                return
            }
            if let nexthopID {
                let unresolved = route(0, nexthop: nexthopID)
                events = [removed ? .routeRemoved(unresolved) : .routeAdded(unresolved, replacing: replacing)]
                return
            }
            var routes: [DefaultRoute] = []
            let count = rtnl_route_get_nnexthops(object)
            for position in 0..<count {
                guard let nexthop = rtnl_route_nexthop_n(object, position) else { continue }
                let index = rtnl_route_nh_get_ifindex(nexthop)
                guard index > 0 else { continue }
                let gateway =
                    KernelMessage.bytes(of: rtnl_route_nh_get_gateway(nexthop))
                    ?? KernelMessage.bytes(of: rtnl_route_nh_get_via(nexthop))
                routes.append(route(index, gateway: gateway.flatMap(IPAddress.init(bytes:)), multipath: count > 1))
            }
            guard !routes.isEmpty else { return }
            events = routes.map { removed ? .routeRemoved($0) : .routeAdded($0, replacing: replacing) }
        }
        return events
    }

    /// Runs libnl's parser for the message's type on a copy of it; `body` gets the object while it lives.
    private static func parse(_ message: [UInt8], _ body: @escaping (OpaquePointer) -> Void) {
        message.withUnsafeBytes { bytes in
            let header = UnsafeMutableRawPointer(mutating: bytes.baseAddress!).assumingMemoryBound(to: nlmsghdr.self)
            guard let converted = nlmsg_convert(header) else { return }
            defer { nlmsg_free(converted) }
            nlmsg_set_proto(converted, NETLINK_ROUTE)
            let context = Context(body)
            withExtendedLifetime(context) {
                _ = nl_msg_parse(
                    converted,
                    { object, argument in
                        guard let object, let argument else { return }
                        Unmanaged<Context>.fromOpaque(argument).takeUnretainedValue().body(object)
                    }, Unmanaged.passUnretained(context).toOpaque())
            }
        }
    }

    /// Carries the closure through nl_msg_parse's `void *` argument.
    private final class Context {
        let body: (OpaquePointer) -> Void
        init(_ body: @escaping (OpaquePointer) -> Void) { self.body = body }
    }
}
