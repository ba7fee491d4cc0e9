// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import PathModel

/// Turns one rtnetlink message into the model's events. The message is borrowed; everything is copied out.
enum KernelMessage {
    /// What one message amounted to.
    enum Conversion {
        /// Events for the model (a multipath route gives one per next hop; a link message gives one).
        case converted([KernelEvent])
        /// A well-formed message the model does not need: another family, a non-default route, a cloned route.
        case notRelevant
        /// A message libnl could not parse or that lacked what we need: skipped ("…, ignoring").
        case malformed
    }

    static func events(from message: OpaquePointer) -> Conversion {
        let header = nlmsg_hdr(message)!  // libnl always gives a message a header
        let type = Int(header.pointee.nlmsg_type)
        switch type {
        case Int(RTM_NEWADDR), Int(RTM_DELADDR):
            return AddressConversion.events(from: message, removed: type == Int(RTM_DELADDR))
        default:
            return events(from: header)
        }
    }

    /// The same for a message outside libnl (the notification reader's): links, routes, neighbours, nexthops and rules
    /// are read from the bytes themselves (with libnl's attribute parser); addresses go through libnl's parser on a
    /// copy.
    static func events(from header: UnsafeMutablePointer<nlmsghdr>) -> Conversion {
        let type = Int(header.pointee.nlmsg_type)
        switch type {
        case Int(RTM_NEWROUTE), Int(RTM_DELROUTE):
            return RouteConversion.events(from: header, removed: type == Int(RTM_DELROUTE))
        case Int(RTM_NEWNEIGH), Int(RTM_DELNEIGH):
            return NeighbourConversion.events(from: header, removed: type == Int(RTM_DELNEIGH))
        case Int(RTM_NEWNEXTHOP), Int(RTM_DELNEXTHOP):
            return NexthopConversion.events(from: header, removed: type == Int(RTM_DELNEXTHOP))
        case Int(RTM_NEWRULE), Int(RTM_DELRULE):
            return .converted([.rulesChanged])
        case Int(RTM_NEWLINK), Int(RTM_DELLINK):
            return LinkConversion.events(from: header, removed: type == Int(RTM_DELLINK))
        case Int(RTM_NEWADDR), Int(RTM_DELADDR):
            guard let message = nlmsg_convert(header) else { return .malformed }
            defer { nlmsg_free(message) }
            nlmsg_set_proto(message, NETLINK_ROUTE)
            return events(from: message)
        default:
            return .notRelevant
        }
    }

    /// The fixed header after the netlink header (ifinfomsg, ifaddrmsg, rtmsg, ndmsg), if the message is long enough.
    static func payload<Header>(of header: UnsafeMutablePointer<nlmsghdr>, as _: Header.Type) -> Header? {
        guard nlmsg_datalen(header) >= MemoryLayout<Header>.size else { return nil }
        return nlmsg_data(header).loadUnaligned(as: Header.self)
    }

    /// Runs libnl's parser for the message's type and hands the parsed object to `body`. The object is libnl's and
    /// lives only during the call, so `body` copies what it needs. Returns libnl's result (0 or a negative NLE code).
    static func parseObject(_ message: OpaquePointer, _ body: @escaping (OpaquePointer) -> Void) -> Int32 {
        let context = ParseContext(body)
        return withExtendedLifetime(context) {
            nl_msg_parse(
                message,
                { object, argument in
                    guard let object, let argument else { return }
                    Unmanaged<ParseContext>.fromOpaque(argument).takeUnretainedValue().body(object)
                }, Unmanaged.passUnretained(context).toOpaque())
        }
    }

    /// The bytes of a libnl address (`struct nl_addr *`), or nil for none or an empty one.
    static func bytes(of address: OpaquePointer?) -> [UInt8]? {
        guard let address, let data = nl_addr_get_binary_addr(address) else { return nil }
        let length = Int(nl_addr_get_len(address))
        guard length > 0 else { return nil }
        return Array(UnsafeRawBufferPointer(start: data, count: length))
    }
}

/// Carries the Swift closure through nl_msg_parse's `void *` argument.
private final class ParseContext {
    let body: (OpaquePointer) -> Void
    init(_ body: @escaping (OpaquePointer) -> Void) { self.body = body }
}
