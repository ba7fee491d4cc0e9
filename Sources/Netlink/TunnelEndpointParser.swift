// SPDX-License-Identifier: Apache-2.0
import PathModel

/// An IP tunnel's far end and mark from its link message (IFLA_LINKINFO → IFLA_INFO_DATA), on plain bytes so that it
/// is tested without the tunnel modules: the remote address the kernel encapsulates to, which finds the tunnel's
/// carrier. WireGuard keeps its peers' endpoints in generic netlink, not here.
enum TunnelEndpointParser {
    /// IFLA_LINKINFO.
    static let linkInfo: UInt16 = 18

    /// Per kind: the attribute numbers of the remote address and of the fwmark inside IFLA_INFO_DATA
    /// (IFLA_IPTUN_REMOTE/FWMARK, IFLA_GRE_REMOTE/FWMARK, IFLA_VTI_REMOTE/FWMARK).
    static let attributes: [String: (remote: UInt16, mark: UInt16)] = [
        "ipip": (3, 20), "sit": (3, 20), "ip6tnl": (3, 20),
        "gre": (7, 20), "gretap": (7, 20), "ip6gre": (7, 20), "ip6gretap": (7, 20),
        "vti": (5, 7), "vti6": (5, 7),
    ]

    /// The endpoints in the attributes of an RTM_NEWLINK message (the bytes after its ifinfomsg), if it is an IP
    /// tunnel with a remote address (a wildcard remote, 0.0.0.0 or ::, names no far end).
    static func endpoints(inLinkAttributes bytes: [UInt8]) -> TunnelEndpoints? {
        guard let info = RouteLookupMessage.attributes(bytes, from: 0).first(where: { $0.0 == linkInfo })?.1 else {
            return nil
        }
        let nested = RouteLookupMessage.attributes(info, from: 0)
        guard let kindBytes = nested.first(where: { $0.0 == 1 })?.1,
            let kind = String(validating: kindBytes.prefix { $0 != 0 }, as: UTF8.self),
            let numbers = attributes[kind], let data = nested.first(where: { $0.0 == 2 })?.1
        else { return nil }
        let fields = RouteLookupMessage.attributes(data, from: 0)
        guard let remoteBytes = fields.first(where: { $0.0 == numbers.remote })?.1,
            let remote = IPAddress(bytes: remoteBytes), remote.bytes.contains(where: { $0 != 0 })
        else { return nil }
        let mark = fields.first { $0.0 == numbers.mark }.flatMap { RouteLookupMessage.u32($0.1, 0) }
        return TunnelEndpoints(remotes: [remote], mark: mark == 0 ? nil : mark)
    }
}
