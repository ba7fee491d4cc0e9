// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import Glibc

/// The libnl calls whose failure changes what the watcher does, behind one seam so that a debug-build test can make
/// them fail on demand (-NLE_NOMEM from a receive, -NLE_DUMP_INTR from a dump) and watch the watcher recover.
struct NetlinkCalls: Sendable {
    /// One nl_recvmsgs_report on the notification socket: messages read (> 0), drained (0 or -NLE_AGAIN), or a
    /// negative NLE code.
    var receiveNotifications: @Sendable (_ socket: NetlinkSocket) -> Int32
    /// Sends one dump request (RTM_GETLINK, RTM_GETADDR, RTM_GETNEXTHOP, RTM_GETROUTE or RTM_GETNEIGH, all families) and reads the whole reply:
    /// messages read, or a negative NLE code (-NLE_DUMP_INTR when the kernel flagged the dump inconsistent).
    var dump: @Sendable (_ socket: NetlinkSocket, _ type: Int32) -> Int32

    /// The real calls.
    static let live = NetlinkCalls(
        receiveNotifications: { socket in socket.receive() },
        dump: { socket, type in
            let sent: Int32
            if type == Int32(RTM_GETNEXTHOP) {
                // The kernel wants a whole struct nhmsg (8 bytes; all zero: every family, no filter) and refuses
                // the one-byte rtgenmsg of nl_rtgen_request with EINVAL.
                var header = [UInt8](repeating: 0, count: 8)
                sent = nl_send_simple(socket.handle, type, NLM_F_DUMP, &header, header.count)
            } else {
                sent = nl_rtgen_request(socket.handle, type, AF_UNSPEC, NLM_F_DUMP)
            }
            guard sent >= 0 else { return sent }
            return socket.receive()
        }
    )
}
