// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import Glibc

/// Reads rtnetlink notifications straight from the socket into one buffer kept for the socket's life, and hands
/// each message's header to the caller. libnl's reader allocates a buffer per datagram and copies every message
/// into a fresh `nl_msg` before its callback sees it; on a route storm that was most of the cost per event.
///
/// Not thread-safe: used by the notification socket's owner only.
final class NotificationReader {
    /// A datagram is one notification sized to its object, a few KiB at most; one that does not fit reads as
    /// truncated, which the watcher treats like lost notifications (a resync).
    static let bufferSize = 64 * 1024

    private let buffer = UnsafeMutableRawBufferPointer.allocate(
        byteCount: bufferSize, alignment: MemoryLayout<nlmsghdr>.alignment)

    deinit { buffer.deallocate() }

    /// Reads one datagram and calls `body` with each message in it that the kernel sent. Returns a positive number
    /// when a datagram was read (its messages, at least 1), 0 when nothing is waiting, or a negative NLE code:
    /// -NLE_NOMEM when notifications were lost (ENOBUFS), -NLE_MSG_TRUNC when the datagram did not fit.
    func read(from descriptor: Int32, _ body: (UnsafeMutablePointer<nlmsghdr>) -> Void) -> Int32 {
        var sender = sockaddr_nl()
        var vector = iovec(iov_base: buffer.baseAddress, iov_len: buffer.count)
        var message = msghdr()
        let length = withUnsafeMutablePointer(to: &sender) { senderPointer in
            withUnsafeMutablePointer(to: &vector) { vectorPointer in
                message.msg_name = UnsafeMutableRawPointer(senderPointer)
                message.msg_namelen = socklen_t(MemoryLayout<sockaddr_nl>.size)
                message.msg_iov = vectorPointer
                message.msg_iovlen = 1
                while true {
                    let length = recvmsg(descriptor, &message, Int32(MSG_DONTWAIT))
                    if length < 0 && errno == EINTR { continue }
                    return length
                }
            }
        }
        guard length >= 0 else {
            switch errno {
            case EAGAIN: return 0
            case ENOBUFS: return -NLE_NOMEM
            default: return -NetlinkError.system(errno: errno).rawValue
            }
        }
        guard message.msg_flags & Int32(MSG_TRUNC) == 0 else { return -NLE_MSG_TRUNC }
        // Only the kernel's notifications count: any local process may send a datagram to this socket's port.
        guard sender.nl_pid == 0 else { return 1 }
        return Self.forEachMessage(in: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<length]), body)
    }

    /// Walks the messages of one datagram (NLMSG_ALIGN'ed, each `nlmsg_len` long); control messages are skipped.
    /// Returns the number of messages (at least 1: a datagram of control messages only was still read), or
    /// -NLE_MSG_TRUNC when a length runs past the datagram.
    static func forEachMessage(
        in datagram: UnsafeMutableRawBufferPointer, _ body: (UnsafeMutablePointer<nlmsghdr>) -> Void
    ) -> Int32 {
        let headerSize = MemoryLayout<nlmsghdr>.size
        var offset = 0
        var count: Int32 = 0
        while datagram.count - offset >= headerSize {
            // The kernel wrote a header here (4-byte aligned, checked to fit): bind the bytes to it.
            let header = (datagram.baseAddress! + offset).bindMemory(to: nlmsghdr.self, capacity: 1)
            let length = Int(header.pointee.nlmsg_len)
            guard length >= headerSize, length <= datagram.count - offset else { return -NLE_MSG_TRUNC }
            if header.pointee.nlmsg_type >= UInt16(NLMSG_MIN_TYPE) {
                body(header)
                count += 1
            }
            offset += (length + 3) & ~3
        }
        return max(count, 1)
    }
}
