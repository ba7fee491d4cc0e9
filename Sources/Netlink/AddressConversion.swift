// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import Glibc
import PathModel

/// RTM_NEWADDR / RTM_DELADDR → `.addressAdded` / `.addressRemoved`.
///
/// Read as the link reader reads links (`LinkConversion`): the ifaddrmsg, then libnl's attribute table in one pass,
/// not libnl's address object parser, which allocated an object, two or three addresses and a copy of the message
/// for five facts: the interface, the local address, its prefix length, its scope and its flags.
enum AddressConversion {
    /// IFA_MAX as these headers know it (a macro the importer does not bring in).
    private static let attributeMax = Int32(__IFA_MAX) - 1

    static func events(from header: UnsafeMutablePointer<nlmsghdr>, removed: Bool) -> KernelMessage.Conversion {
        guard let info = KernelMessage.payload(of: header, as: ifaddrmsg.self) else { return .malformed }
        guard info.ifa_family == UInt8(AF_INET) || info.ifa_family == UInt8(AF_INET6) else { return .notRelevant }
        let address = withUnsafeTemporaryAllocation(
            of: UnsafeMutablePointer<nlattr>?.self, capacity: Int(attributeMax) + 1
        ) { table -> InterfaceAddress? in
            table.initialize(repeating: nil)
            guard nlmsg_parse(header, Int32(MemoryLayout<ifaddrmsg>.size), table.baseAddress!, attributeMax, nil) >= 0
            else { return nil }
            return Self.address(info, attributes: table)
        }
        guard let address else { return .malformed }
        return .converted(removed ? .addressRemoved(address) : .addressAdded(address))
    }

    /// The address a message describes. The local address is IFA_LOCAL, or IFA_ADDRESS without one (IPv6); for a
    /// point-to-point address IFA_ADDRESS is the peer, and the local one is what we want. The flags are IFA_FLAGS
    /// when present (the 32-bit ones), else the ifaddrmsg's eight.
    static func address(_ info: ifaddrmsg, attributes: UnsafeMutableBufferPointer<UnsafeMutablePointer<nlattr>?>)
        -> InterfaceAddress?
    {
        guard let local = attributes[Int(IFA_LOCAL)] ?? attributes[Int(IFA_ADDRESS)],
            let ip = IPAddress(bytes: UnsafeRawBufferPointer(start: nla_data(local), count: Int(nla_len(local)))),
            ip.family == (info.ifa_family == UInt8(AF_INET) ? .ipv4 : .ipv6),
            let scope = AddressScope(rawValue: info.ifa_scope)
        else { return nil }
        var flags = UInt32(info.ifa_flags)
        if let extended = attributes[Int(IFA_FLAGS)], nla_len(extended) >= 4 { flags = nla_get_u32(extended) }
        // An optimistic address (RFC 4429: optimistic_dad) is tentative and used all the same: the kernel picks it
        // as a source during DAD (the only one of its family, or with use_optimistic).
        let isOptimistic = flags & UInt32(IFA_F_OPTIMISTIC) != 0
        let notReady = flags & UInt32(IFA_F_DADFAILED) != 0 || (flags & UInt32(IFA_F_TENTATIVE) != 0 && !isOptimistic)
        return InterfaceAddress(
            interfaceIndex: Int32(bitPattern: info.ifa_index), address: ip, prefixLength: info.ifa_prefixlen,
            scope: scope, isTentative: notReady)
    }
}
