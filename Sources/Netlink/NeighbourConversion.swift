// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import Glibc
import PathModel

/// RTM_NEWNEIGH / RTM_DELNEIGH → `.neighbourChanged` / `.neighbourRemoved`, for resolved unicast IP neighbours.
///
/// The fixed ndmsg header decides relevance before anything is parsed, as for routes: a busy LAN's neighbour churn
/// costs a header read per message for the entries the model never keeps. The two attributes the model keeps,
/// NDA_DST and NDA_LLADDR, are found in the message where they lie: libnl's neighbour parser, which read every
/// attribute into an object allocated for each message (a third of what a LAN host's entry cost the daemon, issue
/// 41), stays the tests' oracle (`NeighbourConversionTests`).
enum NeighbourConversion {
    /// States in which the entry's link-layer address can be trusted. NUD_NOARP is deliberately absent: see
    /// `isCandidate`.
    static let usableStates = UInt16(NUD_REACHABLE | NUD_STALE | NUD_DELAY | NUD_PROBE | NUD_PERMANENT)

    static func events(from header: UnsafeMutablePointer<nlmsghdr>, removed: Bool) -> KernelMessage.Conversion {
        guard let entry = KernelMessage.payload(of: header, as: ndmsg.self) else { return .malformed }
        guard isCandidate(entry) else { return .notRelevant }
        guard entry.ndm_ifindex > 0, let destination = attribute(Int32(NDA_DST), of: header),
            let address = IPAddress(bytes: destination)
        else { return .malformed }
        // FAILED, INCOMPLETE and NONE carry no address worth keeping: for the model the entry is gone.
        if !removed, entry.ndm_state & usableStates != 0, let linkLayer = attribute(Int32(NDA_LLADDR), of: header) {
            let neighbour = Neighbour(
                interfaceIndex: entry.ndm_ifindex, address: address,
                linkLayerAddress: LinkConversion.hardwareAddressText(linkLayer))
            return .converted(.neighbourChanged(neighbour))
        }
        return .converted(.neighbourRemoved(interfaceIndex: entry.ndm_ifindex, address: address))
    }

    /// The entry a message is about (its link and NDA_DST), if it is a candidate (`isCandidate`); nil otherwise or
    /// when the message is cut short.
    static func key(of header: UnsafeMutablePointer<nlmsghdr>) -> GatewayKey? {
        guard let entry = KernelMessage.payload(of: header, as: ndmsg.self), isCandidate(entry), entry.ndm_ifindex > 0,
            let destination = nlmsg_find_attr(header, Int32(MemoryLayout<ndmsg>.size), Int32(NDA_DST)),
            // Read in place: a LAN host's entry is looked at, and left, without an allocation.
            let address = IPAddress(
                bytes: UnsafeRawBufferPointer(start: nla_data(destination), count: Int(nla_len(destination))))
        else { return nil }
        return GatewayKey(interfaceIndex: entry.ndm_ifindex, address: address)
    }

    /// An attribute's bytes after the ndmsg header; nil when absent or empty. libnl's walk stops at an attribute
    /// that overruns the message.
    private static func attribute(_ type: Int32, of header: UnsafeMutablePointer<nlmsghdr>) -> [UInt8]? {
        guard let found = nlmsg_find_attr(header, Int32(MemoryLayout<ndmsg>.size), type), nla_len(found) > 0
        else { return nil }
        return Array(UnsafeRawBufferPointer(start: nla_data(found), count: Int(nla_len(found))))
    }

    /// IPv4/IPv6 entries for a unicast neighbour, not proxy entries (NTF_PROXY) and not AF_BRIDGE fdb entries.
    ///
    /// NUD_NOARP entries are skipped: the kernel creates them silently (no RTM_NEWNEIGH, measured on 6.18) for
    /// multicast and broadcast destinations, for ::1 and 0.0.0.0 on lo and for every neighbour on an IFF_NOARP link,
    /// so a table fed by notifications would never match a dump; and their "link-layer address" is a multicast
    /// mapping, the broadcast address or the link's own, never a gateway's.
    ///
    /// ndm_type is no help: an IPv4 entry's type is fixed when it is created, and is RTN_BROADCAST for any address
    /// while the namespace has no local routing table yet (no IPv4 address anywhere), even for a unicast gateway.
    static func isCandidate(_ entry: ndmsg) -> Bool {
        (entry.ndm_family == UInt8(AF_INET) || entry.ndm_family == UInt8(AF_INET6))
            && entry.ndm_flags & UInt8(NTF_PROXY) == 0
            && entry.ndm_state & UInt16(NUD_NOARP) == 0
    }
}
