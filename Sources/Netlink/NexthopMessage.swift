// SPDX-License-Identifier: Apache-2.0
import PathModel

/// Reads RTM_NEWNEXTHOP / RTM_DELNEXTHOP messages (struct nhmsg, then NHA_* attributes, linux/nexthop.h) from plain
/// bytes, so that it is tested on constructed messages without a kernel. libnl 3.7 (Debian 12) has no nexthop
/// object parser, and routes over nexthops carry only RTA_NH_ID when net.ipv4.nexthop_compat_mode is 0.
enum NexthopMessage {
    static let newNexthop: UInt16 = 104  // RTM_NEWNEXTHOP
    static let deleteNexthop: UInt16 = 105  // RTM_DELNEXTHOP
    /// sizeof(struct nhmsg): family, scope, protocol, reserved, then u32 flags.
    static let headerSize = 8

    /// NHA_* attribute numbers.
    enum Attribute {
        static let id: UInt16 = 1
        static let group: UInt16 = 2
        static let blackhole: UInt16 = 4
        static let outputInterface: UInt16 = 5
        static let gateway: UInt16 = 6
        static let fdb: UInt16 = 11
    }

    /// sizeof(struct nexthop_grp): u32 id, u8 weight, u8 weight_high, u16 reserved.
    static let groupEntrySize = 8

    /// What one message says.
    enum Parsed: Equatable {
        case nexthop(Nexthop)
        /// A bridge FDB nexthop (NHA_FDB): routes cannot use it.
        case notRelevant
        case malformed
    }

    /// Parses the payload after the netlink header: the nhmsg and its attributes. A deletion needs only the id.
    static func parse(_ payload: [UInt8]) -> Parsed {
        guard payload.count >= headerSize else { return .malformed }
        var id: UInt32?
        var nexthop = Nexthop(id: 0)
        for (kind, value) in RouteLookupMessage.attributes(payload, from: headerSize) {
            switch kind {
            case Attribute.id:
                id = RouteLookupMessage.u32(value, 0)
            case Attribute.group:
                guard value.count % groupEntrySize == 0 else { return .malformed }
                nexthop.group = stride(from: 0, to: value.count, by: groupEntrySize).compactMap {
                    RouteLookupMessage.u32(value, $0)
                }
            case Attribute.blackhole:
                nexthop.isBlackhole = true
            case Attribute.outputInterface:
                guard let index = RouteLookupMessage.u32(value, 0) else { return .malformed }
                nexthop.interfaceIndex = Int32(bitPattern: index)
            case Attribute.gateway:
                guard let gateway = IPAddress(bytes: value) else { return .malformed }
                nexthop.gateway = gateway
            case Attribute.fdb:
                return .notRelevant
            default:
                break
            }
        }
        guard let id, id != 0 else { return .malformed }
        nexthop.id = id
        return .nexthop(nexthop)
    }
}
