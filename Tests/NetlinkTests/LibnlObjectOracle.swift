// SPDX-License-Identifier: Apache-2.0
import CNetlink
import Glibc
import PathModel

@testable import Netlink

/// libnl's own object parsers (rtnl_link, rtnl_addr), which pathmond read links and addresses with until issue 41:
/// the oracle its attribute-table readers are compared with, on the kernel's own messages.
enum LibnlObjectOracle {
    /// The link libnl's link parser reads from a message.
    static func link(_ message: [UInt8]) -> Link? {
        var link: Link?
        parse(message) { object in
            let index = rtnl_link_get_ifindex(object)
            guard index > 0, let name = rtnl_link_get_name(object) else { return }
            link = Link(
                index: index, name: String(cString: name), flags: LinkFlags(rawValue: rtnl_link_get_flags(object)),
                operState: OperState(rawValue: rtnl_link_get_operstate(object)) ?? .unknown,
                linkKind: rtnl_link_get_type(object).map { String(cString: $0) },
                hardwareType: UInt16(truncatingIfNeeded: rtnl_link_get_arptype(object)),
                hardwareAddress: KernelMessage.bytes(of: rtnl_link_get_addr(object))
                    .map(LinkConversion.hardwareAddressText))
        }
        return link
    }

    /// The address libnl's address parser reads from a message, as pathmond took it: the local address, its
    /// prefix length, scope and flags (tentative unless optimistic, or failed).
    static func address(_ message: [UInt8]) -> InterfaceAddress? {
        var address: InterfaceAddress?
        parse(message) { object in
            guard let bytes = KernelMessage.bytes(of: rtnl_addr_get_local(object)), let ip = IPAddress(bytes: bytes),
                let scope = AddressScope(rawValue: UInt8(truncatingIfNeeded: rtnl_addr_get_scope(object)))
            else { return }
            let flags = UInt32(rtnl_addr_get_flags(object))
            let optimistic = flags & UInt32(IFA_F_OPTIMISTIC) != 0
            address = InterfaceAddress(
                interfaceIndex: rtnl_addr_get_ifindex(object), address: ip,
                prefixLength: UInt8(truncatingIfNeeded: rtnl_addr_get_prefixlen(object)), scope: scope,
                isTentative: flags & UInt32(IFA_F_DADFAILED) != 0
                    || (flags & UInt32(IFA_F_TENTATIVE) != 0 && !optimistic))
        }
        return address
    }

    /// Runs libnl's parser for the message's type on a copy of it; `body` gets the object while it lives.
    private static func parse(_ message: [UInt8], _ body: @escaping (OpaquePointer) -> Void) {
        message.withUnsafeBytes { bytes in
            let header = UnsafeMutableRawPointer(mutating: bytes.baseAddress!).assumingMemoryBound(to: nlmsghdr.self)
            guard let converted = nlmsg_convert(header) else { return }
            defer { nlmsg_free(converted) }
            nlmsg_set_proto(converted, NETLINK_ROUTE)
            let context = Context(body)
            withExtendedLifetime(context) {
                _ = nl_msg_parse(
                    converted,
                    { object, argument in
                        guard let object, let argument else { return }
                        Unmanaged<Context>.fromOpaque(argument).takeUnretainedValue().body(object)
                    }, Unmanaged.passUnretained(context).toOpaque())
            }
        }
    }

    /// Carries the closure through nl_msg_parse's `void *` argument.
    private final class Context {
        let body: (OpaquePointer) -> Void
        init(_ body: @escaping (OpaquePointer) -> Void) { self.body = body }
    }
}
