// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import Glibc
import Locking
import Netlink
import PathModel

/// Makes the changes a test needs straight over rtnetlink, without spawning `ip`: each call sends one request and
/// waits for the kernel's acknowledgement. Test support only: the shipped Netlink library never writes to the
/// kernel's tables.
public final class KernelWriter: Sendable {
    private let socket: Locked<NetlinkSocket>

    /// Opens a request socket, in the network namespace at `namespacePath` if given (e.g. "/var/run/netns/NAME").
    public init(namespacePath: String? = nil) throws(NetlinkError) {
        let socket = try NetworkNamespace.run(in: namespacePath) { () throws(NetlinkError) in
            try NetlinkSocket(role: .requests)
        }
        self.socket = Locked(socket)
    }

    /// Adds a unicast route for `route`'s destination (default, or half of a split default) in its table, out of its
    /// interface, through its gateway if any, with its metric. With `replacing`, an existing route in the same slot
    /// is replaced (NLM_F_REPLACE) instead of the call failing with `.exists`.
    public func addRoute(_ route: DefaultRoute, replacing: Bool = false) throws(NetlinkError) {
        let flags = NLM_F_CREATE | (replacing ? NLM_F_REPLACE : NLM_F_EXCL)
        try send(RouteRequest.message(for: route, type: Int32(RTM_NEWROUTE), flags: flags))
    }

    /// Deletes the route `route` describes; `.objectNotFound` if there is none.
    public func deleteRoute(_ route: DefaultRoute) throws(NetlinkError) {
        try send(RouteRequest.message(for: route, type: Int32(RTM_DELROUTE), flags: 0))
    }

    /// Adds an address to its interface with its prefix length and scope. IPv6 addresses go through duplicate
    /// address detection (tentative for a while) unless `skippingDuplicateAddressDetection` (IFA_F_NODAD).
    public func addAddress(
        _ address: InterfaceAddress, skippingDuplicateAddressDetection: Bool = false
    ) throws(NetlinkError) {
        let flags = skippingDuplicateAddressDetection ? UInt8(IFA_F_NODAD) : 0
        try send(
            addressMessage(address, type: Int32(RTM_NEWADDR), flags: NLM_F_CREATE | NLM_F_EXCL, addressFlags: flags))
    }

    /// Removes an address from its interface.
    public func deleteAddress(_ address: InterfaceAddress) throws(NetlinkError) {
        try send(addressMessage(address, type: Int32(RTM_DELADDR), flags: 0, addressFlags: 0))
    }

    /// Sets a link administratively up or down (IFF_UP), like `ip link set dev NAME up|down`.
    public func setLink(index: Int32, up: Bool) throws(NetlinkError) {
        let message = try RequestMessage(type: Int32(RTM_SETLINK), flags: 0)
        var header = ifinfomsg()
        header.ifi_family = UInt8(AF_UNSPEC)
        header.ifi_index = index
        header.ifi_flags = up ? UInt32(IFF_UP.rawValue) : 0
        header.ifi_change = UInt32(IFF_UP.rawValue)
        try message.append(header)
        try send(message)
    }

    private func addressMessage(
        _ address: InterfaceAddress, type: Int32, flags: Int32, addressFlags: UInt8
    ) throws(NetlinkError) -> RequestMessage {
        let message = try RequestMessage(type: type, flags: flags)
        var header = ifaddrmsg()
        header.ifa_family = UInt8(address.family == .ipv4 ? AF_INET : AF_INET6)
        header.ifa_prefixlen = address.prefixLength
        header.ifa_flags = addressFlags
        header.ifa_scope = address.scope.rawValue
        header.ifa_index = UInt32(bitPattern: address.interfaceIndex)
        try message.append(header)
        // Like iproute2: IFA_LOCAL is the address, IFA_ADDRESS the same unless there is a peer.
        try message.put(Int32(IFA_LOCAL), bytes: address.address.bytes)
        try message.put(Int32(IFA_ADDRESS), bytes: address.address.bytes)
        return message
    }

    private func send(_ message: RequestMessage) throws(NetlinkError) {
        let result: Result<Void, NetlinkError> = socket.withLock { socket in
            do throws(NetlinkError) {
                try message.send(on: socket)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }
}
