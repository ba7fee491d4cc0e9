// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import Netlink

/// Owns one outgoing netlink message (`struct nl_msg *`) while it is built and sent.
final class RequestMessage {
    let handle: OpaquePointer

    init(type: Int32, flags: Int32) throws(NetlinkError) {
        guard let handle = nlmsg_alloc_simple(type, flags) else { throw .overflow }
        self.handle = handle
    }

    deinit { nlmsg_free(handle) }

    /// Appends the fixed family header (rtmsg, ifaddrmsg, ifinfomsg).
    func append<Header: BitwiseCopyable>(_ header: Header) throws(NetlinkError) {
        var header = header
        let result = withUnsafeMutableBytes(of: &header) {
            nlmsg_append(handle, $0.baseAddress, $0.count, Int32(NLMSG_ALIGNTO))
        }
        guard result >= 0 else { throw NetlinkError(code: result) }
    }

    /// Appends an attribute holding raw bytes (an address).
    func put(_ attribute: Int32, bytes: [UInt8]) throws(NetlinkError) {
        let result = bytes.withUnsafeBytes { nla_put(handle, attribute, Int32($0.count), $0.baseAddress) }
        guard result >= 0 else { throw NetlinkError(code: result) }
    }

    /// Appends a 32-bit attribute (an index, a metric, a table).
    func put(_ attribute: Int32, value: UInt32) throws(NetlinkError) {
        let result = nla_put_u32(handle, attribute, value)
        guard result >= 0 else { throw NetlinkError(code: result) }
    }

    /// Sends the message on a blocking request socket and waits for the kernel's acknowledgement; the kernel's
    /// refusal comes back as the matching error (EEXIST as `.exists`, ESRCH as `.objectNotFound`, ...).
    func send(on socket: NetlinkSocket) throws(NetlinkError) {
        let sent = nl_send_auto_complete(socket.handle, handle)
        guard sent >= 0 else { throw NetlinkError(code: sent) }
        let acknowledged = nl_wait_for_ack(socket.handle)
        guard acknowledged >= 0 else { throw NetlinkError(code: acknowledged) }
    }
}
