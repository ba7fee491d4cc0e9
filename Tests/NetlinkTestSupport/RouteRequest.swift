// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import Glibc
import Netlink
import PathModel

/// Builds RTM_NEWROUTE / RTM_DELROUTE requests for a `DefaultRoute`.
enum RouteRequest {
    static func message(for route: DefaultRoute, type: Int32, flags: Int32) throws(NetlinkError) -> RequestMessage {
        if let gateway = route.gateway, gateway.family != route.family { throw .familyMismatch }
        guard route.prefixLength <= DefaultRoute.maximumPrefixLength else { throw .outOfRange }
        let deleting = type == Int32(RTM_DELROUTE)
        let message = try RequestMessage(type: type, flags: flags)
        var header = rtmsg()
        header.rtm_family = UInt8(route.family == .ipv4 ? AF_INET : AF_INET6)
        header.rtm_dst_len = route.prefixLength
        // Tables past 255 only fit in RTA_TABLE; the header says "see the attribute".
        header.rtm_table = route.table < 256 ? UInt8(route.table) : UInt8(RT_TABLE_UNSPEC.rawValue)
        header.rtm_type = UInt8(RTN_UNICAST)
        if deleting {
            // Like `ip route del`: any scope and any protocol match.
            header.rtm_scope = UInt8(RT_SCOPE_NOWHERE.rawValue)
        } else {
            header.rtm_protocol = UInt8(RTPROT_STATIC)
            header.rtm_scope = UInt8((route.gateway == nil ? RT_SCOPE_LINK : RT_SCOPE_UNIVERSE).rawValue)
        }
        try message.append(header)
        try message.put(Int32(RTA_TABLE.rawValue), value: route.table)
        if route.prefixLength > 0 {
            let length = route.family == .ipv4 ? 4 : 16
            try message.put(
                Int32(RTA_DST.rawValue), bytes: [route.destinationHighByte] + Array(repeating: 0, count: length - 1))
        }
        try message.put(Int32(RTA_OIF.rawValue), value: UInt32(bitPattern: route.interfaceIndex))
        if let gateway = route.gateway { try message.put(Int32(RTA_GATEWAY.rawValue), bytes: gateway.bytes) }
        try message.put(Int32(RTA_PRIORITY.rawValue), value: route.metric)
        return message
    }
}
