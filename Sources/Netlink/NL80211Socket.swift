// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import Glibc

/// One libnl NETLINK_GENERIC socket that talks nl80211. Received messages are copied out as raw bytes, for the
/// pure decoder; libnl's message is only borrowed during its callback.
///
/// @unchecked Sendable: created on one thread (possibly inside another network namespace), then used only from its
/// owner's serial queue.
final class NL80211Socket: @unchecked Sendable {
    /// The `struct nl_sock *`.
    private let handle: OpaquePointer
    /// The `struct nl_cb *` whose VALID callback appends to `inbox`.
    private let callbacks: OpaquePointer
    private let inbox = Inbox()
    /// The generic netlink family id the kernel gave nl80211.
    let family: Int32

    /// Connects and resolves the "nl80211" family; -NLE_OBJ_NOTFOUND when the kernel has no cfg80211.
    init(nonBlocking: Bool) throws(NetlinkError) {
        let (handle, callbacks) = try LibnlAllocation.socketWithCallbacks()
        self.handle = handle
        self.callbacks = callbacks
        nl_cb_set(callbacks, NL_CB_VALID, NL_CB_CUSTOM, Inbox.validMessage, Unmanaged.passUnretained(inbox).toOpaque())
        // Requests expect exactly one reply (or one dump) and no trailing ACK that the next request would trip on.
        nl_socket_disable_auto_ack(handle)
        if nonBlocking { nl_socket_disable_seq_check(handle) }
        // Until `family` is set, deinit does not run for a throwing initializer: free what was made here.
        let connected = genl_connect(handle)
        let resolved = connected == 0 ? genl_ctrl_resolve(handle, NL80211_GENL_NAME) : connected
        guard resolved >= 0 else {
            nl_cb_put(callbacks)
            nl_socket_free(handle)
            throw NetlinkError(code: resolved)
        }
        family = resolved
        if nonBlocking {
            let result = nl_socket_set_nonblocking(handle)
            guard result == 0 else { throw NetlinkError(code: result) }
        }
    }

    deinit {
        nl_cb_put(callbacks)
        nl_socket_free(handle)
    }

    var fileDescriptor: Int32 { nl_socket_get_fd(handle) }

    /// Joins a multicast group of nl80211 by name ("mlme", "config"), resolved through the controller.
    func subscribe(toGroup name: String) throws(NetlinkError) {
        let group = genl_ctrl_resolve_grp(handle, NL80211_GENL_NAME, name)
        guard group >= 0 else { throw NetlinkError(code: group) }
        let result = nl_socket_add_membership(handle, group)
        guard result == 0 else { throw NetlinkError(code: result) }
        // An overflowing queue must say so (ENOBUFS, folded into -NLE_NOMEM): it means a resync.
        var noENOBUFS: Int32 = 0
        _ = setsockopt(fileDescriptor, SOL_NETLINK, NETLINK_NO_ENOBUFS, &noENOBUFS, socklen_t(MemoryLayout<Int32>.size))
    }

    /// One nl_recvmsgs_report: messages read (> 0), drained (0 or -NLE_AGAIN), or a negative NLE code.
    func receive() -> Int32 {
        nl_recvmsgs_report(handle, callbacks)
    }

    /// The raw messages received since the last call.
    func take() -> [[UInt8]] {
        defer { inbox.messages = [] }
        return inbox.messages
    }

    /// NL80211_CMD_GET_INTERFACE, for every interface (a dump) or for one; returns the replies' raw bytes.
    func getInterfaces(index: Int32? = nil) -> Result<[[UInt8]], NetlinkError> {
        request(UInt8(NL80211_CMD_GET_INTERFACE.rawValue), index: index, dump: index == nil)
    }

    /// NL80211_CMD_GET_STATION dump for one interface (a station has one peer: its access point); the replies'
    /// raw bytes.
    func getStations(index: Int32) -> Result<[[UInt8]], NetlinkError> {
        request(UInt8(NL80211_CMD_GET_STATION.rawValue), index: index, dump: true)
    }

    private func request(_ command: UInt8, index: Int32?, dump: Bool) -> Result<[[UInt8]], NetlinkError> {
        _ = take()
        guard let message = nlmsg_alloc() else { return .failure(.overflow) }
        defer { nlmsg_free(message) }
        let flags = dump ? NLM_F_DUMP : 0
        guard genlmsg_put(message, UInt32(NL_AUTO_PORT), UInt32(NL_AUTO_SEQ), family, 0, flags, command, 0) != nil
        else { return .failure(.overflow) }
        if let index {
            let put = nla_put_u32(message, Int32(NL80211_ATTR_IFINDEX.rawValue), UInt32(bitPattern: index))
            guard put == 0 else { return .failure(NetlinkError(code: put)) }
        }
        let sent = nl_send_auto(handle, message)
        guard sent >= 0 else { return .failure(NetlinkError(code: sent)) }
        let received = receive()
        let replies = take()
        return received < 0 ? .failure(NetlinkError(code: received)) : .success(replies)
    }
}

/// Collects raw copies of the messages one receive delivers.
private final class Inbox {
    var messages: [[UInt8]] = []

    /// The NL_CB_VALID callback; `argument` is an unretained `Inbox` that its socket keeps alive.
    static let validMessage: nl_recvmsg_msg_cb_t = { message, argument in
        guard let message, let argument, let header = nlmsg_hdr(message) else { return Int32(NL_SKIP.rawValue) }
        let bytes = Array(UnsafeRawBufferPointer(start: header, count: Int(header.pointee.nlmsg_len)))
        Unmanaged<Inbox>.fromOpaque(argument).takeUnretainedValue().messages.append(bytes)
        return Int32(NL_OK.rawValue)
    }
}
