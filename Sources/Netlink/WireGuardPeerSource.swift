// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import Glibc
import PathModel

/// Asks the kernel's "wireguard" generic netlink family (WG_CMD_GET_DEVICE) for a WireGuard link's peer
/// endpoints and fwmark, on a socket of its own in the watched namespace. Blocking with a short timeout, like the
/// route look-ups, so a missing answer costs one timeout and no hang.
///
/// The family exists only once the wireguard module is loaded, which creating the first WireGuard link does: when
/// it is absent, the family is looked up again only for a WireGuard link not seen before, never on every batch,
/// and nothing is logged (the tunnel's carrier falls back to the best other interface, as for tun devices).
///
/// Not thread-safe: used only on the watcher's loop.
final class WireGuardPeerSource: TunnelPeerSource {
    /// The `struct nl_sock *`.
    private let handle: OpaquePointer
    /// The `struct nl_cb *` whose VALID callback appends to `inbox`.
    private let callbacks: OpaquePointer
    private let inbox = GenericInbox()
    /// The family id, once resolved.
    private var family: Int32?
    /// Links for which the family was looked up and found absent.
    private var triedWithoutFamily: Set<Int32> = []
    /// How many times the family was looked up (for tests: at most once per new link while it is absent).
    private(set) var familyLookups = 0

    /// Connects a generic netlink socket in the caller's network namespace; the family is resolved when needed.
    init() throws(NetlinkError) {
        let (handle, callbacks) = try LibnlAllocation.socketWithCallbacks()
        self.handle = handle
        self.callbacks = callbacks
        nl_cb_set(
            callbacks, NL_CB_VALID, NL_CB_CUSTOM, GenericInbox.validMessage, Unmanaged.passUnretained(inbox).toOpaque())
        // A dump ends with NLMSG_DONE; no ACK that the next request would trip on.
        nl_socket_disable_auto_ack(handle)
        let connected = genl_connect(handle)
        guard connected == 0 else { throw NetlinkError(code: connected) }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        _ = setsockopt(
            nl_socket_get_fd(handle), SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        nl_cb_put(callbacks)
        nl_socket_free(handle)
    }

    func endpoints(ofLinkAt index: Int32) -> TunnelEndpoints? {
        guard let family = resolvedFamily(for: index) else { return nil }
        guard let message = nlmsg_alloc() else { return nil }
        defer { nlmsg_free(message) }
        // WG_CMD_GET_DEVICE is a dump by contract, even for one device.
        guard
            genlmsg_put(
                message, UInt32(NL_AUTO_PORT), UInt32(NL_AUTO_SEQ), family, 0, NLM_F_DUMP, WireGuardMessage.getDevice,
                WireGuardMessage.version) != nil,
            nla_put_u32(message, Int32(WireGuardMessage.DeviceAttribute.interfaceIndex), UInt32(bitPattern: index)) == 0
        else { return nil }
        inbox.messages = []
        discardStaleReplies()
        guard nl_send_auto(handle, message) >= 0 else { return nil }
        let received = nl_recvmsgs_report(handle, callbacks)
        defer { inbox.messages = [] }
        guard received >= 0, let device = WireGuardMessage.device(in: inbox.messages),
            device.interfaceIndex == index
        else { return nil }
        return TunnelEndpoints(remotes: device.endpoints, mark: device.fwmark == 0 ? nil : device.fwmark)
    }

    /// The rest of an answer that timed out would otherwise be read as the next request's: empty the socket first.
    private func discardStaleReplies() {
        let descriptor = nl_socket_get_fd(handle)
        var scratch = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<64 {
            let received = scratch.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if received <= 0 && errno != EINTR { return }
        }
    }

    /// The family id, looking it up if it is not known and this link has not been tried without it.
    private func resolvedFamily(for index: Int32) -> Int32? {
        if let family { return family }
        guard !triedWithoutFamily.contains(index) else { return nil }
        familyLookups += 1
        let resolved = genl_ctrl_resolve(handle, "wireguard")
        guard resolved >= 0 else {
            triedWithoutFamily.insert(index)
            return nil
        }
        family = resolved
        return resolved
    }
}

/// Collects raw copies of the messages one receive delivers.
private final class GenericInbox {
    var messages: [[UInt8]] = []

    /// The NL_CB_VALID callback; `argument` is an unretained `GenericInbox` that its socket keeps alive.
    static let validMessage: nl_recvmsg_msg_cb_t = { message, argument in
        guard let message, let argument, let header = nlmsg_hdr(message) else { return Int32(NL_SKIP.rawValue) }
        let bytes = Array(UnsafeRawBufferPointer(start: header, count: Int(header.pointee.nlmsg_len)))
        Unmanaged<GenericInbox>.fromOpaque(argument).takeUnretainedValue().messages.append(bytes)
        return Int32(NL_OK.rawValue)
    }
}
