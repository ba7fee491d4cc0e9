// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import PathModel

/// Reads one interface's byte counters (IFLA_STATS64) with an RTM_GETLINK request on a socket of its own: what
/// usage per network is counted from. The kernel answers a link request inside the send, so a read costs a
/// round trip to the kernel and never waits on the network. Not /sys/class/net: that shows the network namespace
/// sysfs was mounted in, not the daemon's.
///
/// Use from one thread at a time (the main loop): libnl's socket is not thread-safe.
public final class LinkCounterReader {
    private let handle: OpaquePointer

    public init() throws(NetlinkError) {
        guard let handle = nl_socket_alloc() else { throw .overflow }
        let connected = nl_connect(handle, NETLINK_ROUTE)
        guard connected == 0 else {
            nl_socket_free(handle)
            throw NetlinkError(code: connected)
        }
        self.handle = handle
    }

    deinit {
        // Closes the file descriptor too.
        nl_socket_free(handle)
    }

    /// The interface's name and counters now; nil when there is no such interface (it went away), or the kernel
    /// could not answer (then the next reading covers the interval).
    public func read(index: Int32) -> CounterReading? {
        var object: OpaquePointer?
        guard rtnl_link_get_kernel(handle, index, nil, &object) == 0, let object else { return nil }
        defer { rtnl_link_put(object) }
        guard let name = rtnl_link_get_name(object) else { return nil }
        let counters = ByteCounts(
            sent: rtnl_link_get_stat(object, RTNL_LINK_TX_BYTES),
            received: rtnl_link_get_stat(object, RTNL_LINK_RX_BYTES))
        return CounterReading(index: index, name: String(cString: name), counters: counters)
    }
}
