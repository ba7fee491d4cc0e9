// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import Glibc

/// Owns one libnl NETLINK_ROUTE socket and the callback set that feeds its messages to a `MessageSink`.
///
/// @unchecked Sendable: a socket is created on one thread (possibly inside another network namespace) and then
/// handed over to its owner, which makes every later call from its one serial queue (or under its one lock).
package final class NetlinkSocket: @unchecked Sendable {
    /// The `struct nl_sock *`.
    package let handle: OpaquePointer
    /// The `struct nl_cb *` used for receiving; its VALID callback converts messages into `sink`.
    private let callbacks: OpaquePointer
    /// Where received messages go, converted. Read and emptied by the owner after each receive.
    let sink = MessageSink()
    /// The notification socket's own reader (libnl's is used for requests, whose replies span datagrams).
    private let notificationReader: NotificationReader?

    /// The kind of socket: subscribed to notifications, or for request/response (dumps, writes).
    package enum Role {
        /// Subscribed to the link, address, route and neighbour groups; non-blocking; no sequence checks, since
        /// notifications carry sequence numbers of other processes' requests.
        case notifications(receiveBufferSize: Int)
        /// Blocking, sequence-checked, one request at a time.
        case requests
    }

    package init(role: Role) throws(NetlinkError) {
        let (handle, callbacks) = try LibnlAllocation.socketWithCallbacks()
        self.handle = handle
        self.callbacks = callbacks
        if case .notifications = role { notificationReader = NotificationReader() } else { notificationReader = nil }
        nl_cb_set(
            callbacks, NL_CB_VALID, NL_CB_CUSTOM, MessageSink.validMessage, Unmanaged.passUnretained(sink).toOpaque())
        if case .notifications = role { nl_socket_disable_seq_check(handle) }
        let connected = nl_connect(handle, NETLINK_ROUTE)
        guard connected == 0 else { throw NetlinkError(code: connected) }
        if case .notifications(let size) = role { try subscribe(receiveBufferSize: size) }
    }

    deinit {
        nl_cb_put(callbacks)
        // Closes the file descriptor too.
        nl_socket_free(handle)
    }

    /// The socket's file descriptor, for a read source.
    var fileDescriptor: Int32 { nl_socket_get_fd(handle) }

    /// One datagram of notifications, or one nl_recvmsgs_report (a whole multipart dump on a blocking socket).
    /// Returns the number of messages read, 0 (or -NLE_AGAIN) when a non-blocking socket is drained, or a negative
    /// NLE code.
    func receive() -> Int32 {
        guard let notificationReader else { return nl_recvmsgs_report(handle, callbacks) }
        let sink = sink
        return notificationReader.read(from: fileDescriptor) { sink.receive(header: $0) }
    }

    private func subscribe(receiveBufferSize: Int) throws(NetlinkError) {
        let groups = [
            RTNLGRP_LINK, RTNLGRP_IPV4_IFADDR, RTNLGRP_IPV6_IFADDR, RTNLGRP_IPV4_ROUTE, RTNLGRP_IPV6_ROUTE,
            RTNLGRP_NEIGH,
            // Rules and nexthop objects change the kernel's routing decisions without any route message.
            RTNLGRP_IPV4_RULE, RTNLGRP_IPV6_RULE, RTNLGRP_NEXTHOP,
        ]
        for group in groups {
            // nl_socket_add_memberships is variadic, which Swift cannot call: one group at a time.
            let result = nl_socket_add_membership(handle, Int32(group.rawValue))
            guard result == 0 else { throw NetlinkError(code: result) }
        }
        let nonBlocking = nl_socket_set_nonblocking(handle)
        guard nonBlocking == 0 else { throw NetlinkError(code: nonBlocking) }
        try setReceiveBuffer(size: receiveBufferSize)
        // Off by default, but we rely on ENOBUFS to learn that notifications were lost: make it explicit.
        var noENOBUFS: Int32 = 0
        guard setOption(level: SOL_NETLINK, name: NETLINK_NO_ENOBUFS, value: &noENOBUFS) else {
            throw .system(errno: errno)
        }
    }

    /// SO_RCVBUFFORCE goes past rmem_max (needs CAP_NET_ADMIN); without the capability, SO_RCVBUF gets as much as
    /// rmem_max allows.
    private func setReceiveBuffer(size: Int) throws(NetlinkError) {
        var value = Int32(clamping: size)
        if setOption(level: SOL_SOCKET, name: SO_RCVBUFFORCE, value: &value) { return }
        guard setOption(level: SOL_SOCKET, name: SO_RCVBUF, value: &value) else { throw .system(errno: errno) }
    }

    private func setOption(level: Int32, name: Int32, value: inout Int32) -> Bool {
        setsockopt(fileDescriptor, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0
    }
}
