// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import PathModel

/// Turns one rtnetlink message into the model's events. The message is borrowed; everything is copied out.
enum KernelMessage {
    /// What one message amounted to.
    enum Conversion {
        /// The model's event: what every message but a multipath route gives. Held as itself, not in an array of
        /// one (each message's array was an allocation, and the batch copied it out again).
        case converted(KernelEvent)
        /// A multipath route's events, one per next hop.
        case convertedHops([KernelEvent])
        /// A well-formed message the model does not need: another family, a non-default route, a cloned route.
        case notRelevant
        /// A message libnl could not parse or that lacked what we need: skipped ("…, ignoring").
        case malformed

        /// The events converted; nil: none (not relevant, or malformed).
        var events: [KernelEvent]? {
            switch self {
            case .converted(let event): [event]
            case .convertedHops(let events): events
            case .notRelevant, .malformed: nil
            }
        }
    }

    /// A message libnl read (a dump's).
    static func events(from message: OpaquePointer) -> Conversion {
        events(from: nlmsg_hdr(message)!)  // libnl always gives a message a header
    }

    /// The same for a message outside libnl (the notification reader's). Every kind is read from the message's own
    /// bytes, once its fixed header says it matters: links, addresses and routes from libnl's attribute table, a
    /// neighbour's two attributes found where they lie.
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
            return .converted(.rulesChanged)
        case Int(RTM_NEWLINK), Int(RTM_DELLINK):
            return LinkConversion.events(from: header, removed: type == Int(RTM_DELLINK))
        case Int(RTM_NEWADDR), Int(RTM_DELADDR):
            return AddressConversion.events(from: header, removed: type == Int(RTM_DELADDR))
        default:
            return .notRelevant
        }
    }

    /// The fixed header after the netlink header (ifinfomsg, ifaddrmsg, rtmsg, ndmsg), if the message is long enough.
    static func payload<Header>(of header: UnsafeMutablePointer<nlmsghdr>, as _: Header.Type) -> Header? {
        guard nlmsg_datalen(header) >= MemoryLayout<Header>.size else { return nil }
        return nlmsg_data(header).loadUnaligned(as: Header.self)
    }

    /// The bytes of a libnl address (`struct nl_addr *`), or nil for none or an empty one.
    static func bytes(of address: OpaquePointer?) -> [UInt8]? {
        guard let address, let data = nl_addr_get_binary_addr(address) else { return nil }
        let length = Int(nl_addr_get_len(address))
        guard length > 0 else { return nil }
        return Array(UnsafeRawBufferPointer(start: data, count: length))
    }
}
