// SPDX-License-Identifier: Apache-2.0
/// A nexthop object of the kernel (RTM_NEWNEXTHOP: `ip nexthop add id N ...`), which routes name by id
/// (RTA_NH_ID) instead of carrying their own interface and gateway, as FRR and systemd-networkd's [NextHop] write
/// them. One is either a single next hop (an interface, maybe a gateway), a group of other nexthops' ids (ECMP), or
/// a blackhole.
public struct Nexthop: Sendable, Hashable {
    /// The id routes name it by (NHA_ID), unique in its namespace.
    public var id: UInt32
    /// The outgoing interface (NHA_OIF); 0 for a group or a blackhole.
    public var interfaceIndex: Int32
    /// The next-hop router (NHA_GATEWAY), of either family: an IPv4 route may go via an IPv6 nexthop.
    public var gateway: IPAddress?
    /// A group's members by id (NHA_GROUP), in the kernel's order; empty for a single next hop.
    public var group: [UInt32]
    /// NHA_BLACKHOLE: packets routed here are dropped.
    public var isBlackhole: Bool

    public init(
        id: UInt32, interfaceIndex: Int32 = 0, gateway: IPAddress? = nil, group: [UInt32] = [],
        isBlackhole: Bool = false
    ) {
        self.id = id
        self.interfaceIndex = interfaceIndex
        self.gateway = gateway
        self.group = group
        self.isBlackhole = isBlackhole
    }

    /// Whether this is a group of other nexthops.
    public var isGroup: Bool { !group.isEmpty }
}

/// The kernel's nexthop objects by id, with what the kernel does to them without a word (measured on Linux 6.18,
/// see KERNEL-NOTES): a link that goes down or loses carrier takes its nexthops with it, shrinks the groups that
/// held them (deleting a group left empty), and deletes the routes that used any of those, all without
/// RTM_DELNEXTHOP, RTM_NEWNEXTHOP or RTM_DELROUTE.
struct NexthopTable: Sendable, Hashable {
    private(set) var byID: [UInt32: Nexthop] = [:]

    var isEmpty: Bool { byID.isEmpty }

    /// RTM_NEWNEXTHOP, new or replacing.
    mutating func insert(_ nexthop: Nexthop) {
        byID[nexthop.id] = nexthop
    }

    /// Removes nexthops (RTM_DELNEXTHOP, or flushed with their link) the way the kernel does: out of every group
    /// too, and a group left empty goes as well. Returns the ids that are gone, groups included.
    mutating func remove(_ ids: Set<UInt32>) -> Set<UInt32> {
        var gone = ids.filter { byID[$0] != nil }
        for id in gone { byID[id] = nil }
        guard !gone.isEmpty else { return [] }
        for (id, nexthop) in byID where nexthop.isGroup && nexthop.group.contains(where: gone.contains) {
            let remaining = nexthop.group.filter { !gone.contains($0) }
            if remaining.isEmpty {
                byID[id] = nil
                gone.insert(id)
            } else {
                byID[id]?.group = remaining
            }
        }
        return gone
    }

    /// The ids of the single nexthops out of one interface.
    func ids(through index: Int32) -> Set<UInt32> {
        Set(byID.values.filter { !$0.isGroup && $0.interfaceIndex == index }.map(\.id))
    }

    /// The single next hops a route naming `id` uses: the nexthop itself, or a group's members (a member that is
    /// missing or a blackhole carries nothing).
    func members(of id: UInt32) -> [Nexthop] {
        guard let nexthop = byID[id] else { return [] }
        let singles = nexthop.isGroup ? nexthop.group.compactMap { byID[$0] } : [nexthop]
        return singles.filter { !$0.isGroup && !$0.isBlackhole && $0.interfaceIndex > 0 }
    }

    /// Every nexthop, by id.
    var sorted: [Nexthop] { byID.values.sorted { $0.id < $1.id } }
}
