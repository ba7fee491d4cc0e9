// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// The rtnetlink ABI the bench needs, spelled out by hand: Glibc does not export <linux/rtnetlink.h>, and only
/// the Netlink module may import CNetlink. The numbers are kernel ABI and never change.
enum RTNetlink {
    static let netlinkRoute: Int32 = 0
    static let headerSize = 16

    static let error: UInt16 = 2
    static let newLink: UInt16 = 16
    static let deleteLink: UInt16 = 17
    static let newAddress: UInt16 = 20
    static let deleteAddress: UInt16 = 21
    static let newRoute: UInt16 = 24
    static let deleteRoute: UInt16 = 25
    static let newNeighbour: UInt16 = 28

    static let request: UInt16 = 0x1
    static let acknowledge: UInt16 = 0x4
    static let replace: UInt16 = 0x100
    static let exclusive: UInt16 = 0x200
    static let create: UInt16 = 0x400

    /// RTMGRP_IPV4_ROUTE alone: all fan-out's raw reference needs.
    static let ipv4RouteGroup: UInt32 = 0x40
    /// RTMGRP_LINK | IPV4_IFADDR | IPV4_ROUTE | IPV6_IFADDR | IPV6_ROUTE: what pathmond itself listens to.
    static let monitorGroups: UInt32 = 0x1 | 0x10 | 0x40 | 0x100 | 0x400
    /// RTMGRP_NEIGH: neighbour entries, which pathmond follows for its gateways.
    static let neighbourGroup: UInt32 = 0x4

    static let interfaceUp: UInt32 = 0x1
    static let mainTable: UInt8 = 254
    static let protocolBoot: UInt8 = 3
    static let scopeUniverse: UInt8 = 0
    static let scopeLink: UInt8 = 253
    static let scopeNowhere: UInt8 = 255
    static let unicast: UInt8 = 1
    static let attributeOutputInterface: UInt16 = 4
    static let attributeAddress: UInt16 = 1
    static let attributeLocal: UInt16 = 2
    static let attributePriority: UInt16 = 6
    static let attributeGateway: UInt16 = 5
    /// IFA_CACHEINFO: an address's preferred and valid lifetimes (and two time stamps the kernel ignores here).
    static let attributeAddressLifetimes: UInt16 = 6
    /// NDA_DST and NDA_LLADDR: a neighbour entry's address and link-layer address.
    static let attributeNeighbourAddress: UInt16 = 1
    static let attributeLinkLayerAddress: UInt16 = 2
    /// NUD_REACHABLE and NUD_STALE: states of a resolved entry.
    static let neighbourReachable: UInt16 = 0x02
    static let neighbourStale: UInt16 = 0x04

    /// Leaves every group in `groups` (a bind mask), so that a listener whose thread blocks in recv for good is never
    /// woken again (closing the socket would not wake it either): what a bench does with a reference it is done with.
    static func leaveGroups(_ fd: Int32, _ groups: UInt32) {
        for bit in 0..<32 where groups & (1 << bit) != 0 {
            var group = Int32(bit + 1)  // NETLINK_DROP_MEMBERSHIP (2) at SOL_NETLINK (270) takes the group's number.
            _ = setsockopt(fd, 270, 2, &group, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    /// Opens a NETLINK_ROUTE socket bound to `groups` (0 for a socket that only sends requests).
    static func openSocket(groups: UInt32) throws(BenchError) -> Int32 {
        let fd = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), netlinkRoute)
        guard fd >= 0 else { throw .system("socket(AF_NETLINK)", errno) }
        // struct sockaddr_nl: family, pad, pid (0: the kernel picks), groups.
        var address = (UInt16(AF_NETLINK), UInt16(0), UInt32(0), groups)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, 12) }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw .system("bind(AF_NETLINK)", code)
        }
        return fd
    }
}

/// The few header fields of one rtnetlink notification that say what changed.
struct RawMessage: Sendable, Hashable {
    var type: UInt16
    /// ifi_family, ifa_family or rtm_family.
    var family: UInt8 = 0
    /// ifi_index or ifa_index; 0 for routes.
    var index: Int32 = 0
    /// ifi_flags for links.
    var flags: UInt32 = 0
    /// rtm_dst_len for routes, ifa_prefixlen for addresses.
    var prefixLength: UInt8 = 0
    /// rtm_table for routes.
    var table: UInt8 = 0

    /// Splits one datagram into messages; malformed tails are dropped, this is a benchmark, not a parser.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> [RawMessage] {
        var messages: [RawMessage] = []
        var offset = 0
        while offset + RTNetlink.headerSize <= bytes.count {
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            guard length >= RTNetlink.headerSize, offset + length <= bytes.count else { break }
            var message = RawMessage(type: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt16.self))
            let body = offset + RTNetlink.headerSize
            let bodyLength = length - RTNetlink.headerSize
            switch message.type {
            case RTNetlink.newLink, RTNetlink.deleteLink:
                guard bodyLength >= 16 else { break }  // struct ifinfomsg
                message.family = bytes[body]
                message.index = bytes.loadUnaligned(fromByteOffset: body + 4, as: Int32.self)
                message.flags = bytes.loadUnaligned(fromByteOffset: body + 8, as: UInt32.self)
            case RTNetlink.newAddress, RTNetlink.deleteAddress:
                guard bodyLength >= 8 else { break }  // struct ifaddrmsg
                message.family = bytes[body]
                message.prefixLength = bytes[body + 1]
                message.index = bytes.loadUnaligned(fromByteOffset: body + 4, as: Int32.self)
            case RTNetlink.newRoute, RTNetlink.deleteRoute:
                guard bodyLength >= 12 else { break }  // struct rtmsg
                message.family = bytes[body]
                message.prefixLength = bytes[body + 1]
                message.table = bytes[body + 4]
            default:
                break
            }
            messages.append(message)
            offset += (length + 3) & ~3
        }
        return messages
    }
}

/// Errors that end the benchmark, each with a sentence a person can act on.
enum BenchError: Error, CustomStringConvertible {
    case system(String, Int32)
    case kernel(String, Int32)
    case setup(String)

    var description: String {
        switch self {
        case .system(let call, let code): return "\(call) failed: \(String(cString: strerror(code)))"
        case .kernel(let request, let code): return "the kernel refused \(request): \(String(cString: strerror(code)))"
        case .setup(let sentence): return sentence
        }
    }
}

/// CLOCK_MONOTONIC in nanoseconds: the one clock both observers and the writer read.
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}
