// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import Glibc
import PathModel

/// RTM_NEWADDR / RTM_DELADDR → `.addressAdded` / `.addressRemoved`.
enum AddressConversion {
    static func events(from message: OpaquePointer, removed: Bool) -> KernelMessage.Conversion {
        var address: InterfaceAddress?
        var relevant = true
        _ = KernelMessage.parseObject(message) { object in
            let family = rtnl_addr_get_family(object)
            guard family == AF_INET || family == AF_INET6 else {
                relevant = false
                return
            }
            address = Self.address(from: object)
        }
        guard relevant else { return .notRelevant }
        guard let address else { return .malformed }
        return .converted([removed ? .addressRemoved(address) : .addressAdded(address)])
    }

    /// Copies a borrowed `struct rtnl_addr *`. libnl's local address is IFA_LOCAL, or IFA_ADDRESS when there is
    /// no IFA_LOCAL (IPv6); for a point-to-point address IFA_ADDRESS is the peer, and the local one is what we want.
    static func address(from object: OpaquePointer) -> InterfaceAddress? {
        guard let bytes = KernelMessage.bytes(of: rtnl_addr_get_local(object)),
            let ip = IPAddress(bytes: bytes),
            let scope = AddressScope(rawValue: UInt8(truncatingIfNeeded: rtnl_addr_get_scope(object)))
        else { return nil }
        let flags = UInt32(rtnl_addr_get_flags(object))
        // An optimistic address (RFC 4429: optimistic_dad) is tentative and used all the same: the kernel picks it
        // as a source during DAD (the only one of its family, or with use_optimistic).
        let isOptimistic = flags & UInt32(IFA_F_OPTIMISTIC) != 0
        let notReady = flags & UInt32(IFA_F_DADFAILED) != 0 || (flags & UInt32(IFA_F_TENTATIVE) != 0 && !isOptimistic)
        return InterfaceAddress(
            interfaceIndex: rtnl_addr_get_ifindex(object),
            address: ip,
            prefixLength: UInt8(truncatingIfNeeded: rtnl_addr_get_prefixlen(object)),
            scope: scope,
            isTentative: notReady
        )
    }
}
