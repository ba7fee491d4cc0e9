// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import PathModel

/// A neighbour message as the notifications' sink sees it before converting it, for the route follower to say
/// whether it could change anything the follower keeps (`RouteFollower.reads`). Borrowed for that call: it reads
/// the message where it lies.
struct NeighbourMessage {
    /// The entry: its link and NDA_DST.
    let key: GatewayKey
    /// Whether the follower has applied every message read before this one: only then is what it holds the entry
    /// as it was before this message.
    let followerIsCurrent: Bool
    private let header: UnsafeMutablePointer<nlmsghdr>
    private let entry: ndmsg

    /// The message, if it is about a candidate entry (`NeighbourConversion.isCandidate`); nil otherwise or when it
    /// is cut short.
    init?(_ header: UnsafeMutablePointer<nlmsghdr>, followerIsCurrent: Bool) {
        guard let key = NeighbourConversion.key(of: header),
            let entry = KernelMessage.payload(of: header, as: ndmsg.self)
        else { return nil }
        self.key = key
        self.followerIsCurrent = followerIsCurrent
        self.header = header
        self.entry = entry
    }

    /// Whether converting the message gives `.neighbourChanged(neighbour)`: a usable entry with the same link-layer
    /// address (its NUD state between REACHABLE, STALE, DELAY and PROBE, which the model does not keep).
    func restates(_ neighbour: Neighbour) -> Bool {
        guard header.pointee.nlmsg_type == UInt16(RTM_NEWNEIGH),
            entry.ndm_state & NeighbourConversion.usableStates != 0,
            neighbour.interfaceIndex == key.interfaceIndex, neighbour.address == key.address,
            let linkLayer = nlmsg_find_attr(header, Int32(MemoryLayout<ndmsg>.size), Int32(NDA_LLADDR))
        else { return false }
        return LinkConversion.hardwareAddressText(
            neighbour.linkLayerAddress,
            spells: UnsafeRawBufferPointer(start: nla_data(linkLayer), count: Int(nla_len(linkLayer))))
    }
}
