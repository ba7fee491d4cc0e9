// SPDX-License-Identifier: Apache-2.0
import CNetlink
import Glibc
import NetlinkTestSupport

@testable import Netlink

/// The kernel's own messages for the readers' tests: one rtnetlink dump in a test namespace, each answer as its
/// own bytes, read with a bare socket (no libnl in between).
enum RawDump {
    /// Every message of type `answer` that a `request` dump (RTM_GETLINK, RTM_GETADDR) brings in the namespace.
    static func messages(_ request: Int32, answeredBy answer: Int32, in namespace: TestNetworkNamespace) throws
        -> [[UInt8]]
    {
        try NetworkNamespace.run(in: namespace.path) { () throws(NetlinkError) -> [[UInt8]] in
            let descriptor = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), NETLINK_ROUTE)
            guard descriptor >= 0 else { throw NetlinkError.system(errno: errno) }
            defer { close(descriptor) }
            // The header, then a zeroed ifinfomsg (16 bytes; an ifaddrmsg's 8 fit in it, AF_UNSPEC: every family).
            var message = RouteLookupMessage.littleEndianBytes(UInt32(16 + 16))
            message += RouteLookupMessage.littleEndianBytes(UInt16(request))
            message += RouteLookupMessage.littleEndianBytes(UInt16(NLM_F_REQUEST | NLM_F_DUMP))
            message += RouteLookupMessage.littleEndianBytes(UInt32(1)) + [0, 0, 0, 0]
            message += [UInt8](repeating: 0, count: 16)
            guard send(descriptor, message, message.count, 0) == message.count else {
                throw NetlinkError.system(errno: errno)
            }
            var messages: [[UInt8]] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let received = recv(descriptor, &buffer, buffer.count, 0)
                guard received > 0 else { throw NetlinkError.system(errno: errno) }
                var offset = 0
                while offset + 16 <= received {
                    let length = Int(RouteLookupMessage.u32(buffer, offset) ?? 0)
                    let type = RouteLookupMessage.u16(buffer, offset + 4) ?? 0
                    guard length >= 16, offset + length <= received else { return messages }
                    if type == UInt16(NLMSG_DONE) { return messages }
                    if type == UInt16(answer) { messages.append(Array(buffer[offset..<(offset + length)])) }
                    offset += (length + 3) & ~3
                }
            }
        }
    }
}
