// SPDX-License-Identifier: Apache-2.0
/// A unicast route towards the internet through one interface: a default route (prefix length 0), or one half of
/// the split default that VPNs install (0.0.0.0/1 and 128.0.0.0/1, ::/1 and 8000::/1). A multipath route
/// becomes one value per next hop. Only these are kept: the rest of a routing table says nothing about the path.
public struct DefaultRoute: Sendable, Hashable {
    /// IPv4 or IPv6.
    public var family: AddressFamily
    /// The routing table (RT_TABLE_MAIN is 254); routes in every table count.
    public var table: UInt32
    /// 0 for a default route, 1 for half of a split default.
    public var prefixLength: UInt8
    /// The destination's first byte, which tells the halves of a split default apart (0 for a default route).
    public var destinationHighByte: UInt8
    /// The route priority; lower wins.
    public var metric: UInt32
    /// The outgoing interface.
    public var interfaceIndex: Int32
    /// The next-hop router, or nil for a device route (point-to-point links).
    public var gateway: IPAddress?
    /// One next hop of a route with several (RTA_MULTIPATH). The kernel treats those differently: an IPv4
    /// multipath route outlives one of its links going down, and dies whole, silently, when one is deleted.
    public var isMultipath: Bool
    /// The nexthop object the route names (RTA_NH_ID), if it uses one. As the kernel announces it, such a route
    /// has interface 0 and no gateway; the state resolves it through its nexthops into one value per next hop,
    /// each with this id kept, so that the kernel's compatibility attributes are never needed.
    public var nexthopID: UInt32?

    public init(
        family: AddressFamily, table: UInt32 = 254, prefixLength: UInt8 = 0, destinationHighByte: UInt8 = 0,
        metric: UInt32 = 0, interfaceIndex: Int32, gateway: IPAddress? = nil, isMultipath: Bool = false,
        nexthopID: UInt32? = nil
    ) {
        self.nexthopID = nexthopID
        self.family = family
        self.table = table
        self.prefixLength = prefixLength
        self.destinationHighByte = destinationHighByte
        self.metric = metric
        self.interfaceIndex = interfaceIndex
        self.gateway = gateway
        self.isMultipath = isMultipath
    }

    /// Every field, packed into three words and the gateway's two: each route the models insert or remove is hashed
    /// twice (the set of routes and its interface's), and the synthesized hash fed the hasher a dozen small values
    /// one by one. Equality stays the synthesized one, over the same fields.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(UInt64(table) << 32 | UInt64(metric))
        var packed = UInt64(UInt32(bitPattern: interfaceIndex)) << 32 | UInt64(prefixLength) << 16
        packed |= UInt64(destinationHighByte) << 8 | (family == .ipv4 ? 1 : 0) | (isMultipath ? 2 : 0)
        packed |= (gateway == nil ? 0 : 4) | (nexthopID == nil ? 0 : 8)
        hasher.combine(packed)
        hasher.combine(UInt64(nexthopID ?? 0))
        if let gateway { gateway.hash(into: &hasher) }
    }

    /// The largest prefix length that still describes a route towards the whole internet.
    public static let maximumPrefixLength: UInt8 = 1

    /// Whether two routes occupy the same kernel slot: the kernel keys a route by family, table, destination and
    /// priority, so an RTM_NEWROUTE with NLM_F_REPLACE for one drops the other (IPv4 and IPv6 alike; measured).
    func sharesSlot(with other: DefaultRoute) -> Bool {
        family == other.family && table == other.table && prefixLength == other.prefixLength
            && destinationHighByte == other.destinationHighByte && metric == other.metric
    }

    /// A total order for listings: by interface, family, metric, table, then the rest.
    public static func displayOrder(_ lhs: DefaultRoute, _ rhs: DefaultRoute) -> Bool {
        let left = (lhs.interfaceIndex, lhs.family, lhs.metric, lhs.table, lhs.prefixLength, lhs.destinationHighByte)
        let right = (rhs.interfaceIndex, rhs.family, rhs.metric, rhs.table, rhs.prefixLength, rhs.destinationHighByte)
        if left != right { return left < right }
        if lhs.gateway == rhs.gateway {
            // Routes over different nexthop objects may otherwise be alike: order them too, for stable listings
            // (and statuses that are equal whatever order the state's tables hold them in).
            return (lhs.nexthopID ?? 0, lhs.isMultipath ? 1 : 0) < (rhs.nexthopID ?? 0, rhs.isMultipath ? 1 : 0)
        }
        switch (lhs.gateway, rhs.gateway) {
        case (nil, nil), (.some, nil): return false
        case (nil, .some): return true
        case (.some(let left), .some(let right)): return left < right
        }
    }
}
