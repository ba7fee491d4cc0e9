// SPDX-License-Identifier: Apache-2.0
/// A resolved entry of the kernel's neighbour table (RTM_NEWNEIGH): which link-layer address an IP address on a
/// link has. pathmond uses it to name a wired network by its gateway.
public struct Neighbour: Sendable, Hashable {
    /// The interface the neighbour is on.
    public var interfaceIndex: Int32
    /// The neighbour's IP address.
    public var address: IPAddress
    /// Its link-layer address as lower-case colon-separated hex.
    public var linkLayerAddress: String

    public init(interfaceIndex: Int32, address: IPAddress, linkLayerAddress: String) {
        self.interfaceIndex = interfaceIndex
        self.address = address
        self.linkLayerAddress = linkLayerAddress.lowercasedIfNeeded
    }

    var key: NeighbourKey { NeighbourKey(interfaceIndex: interfaceIndex, address: address) }
}

struct NeighbourKey: Hashable {
    var interfaceIndex: Int32
    var address: IPAddress
}

/// A next hop of a route on one interface: whose link-layer address names a wired network.
public struct GatewayKey: Sendable, Hashable {
    /// The interface the route leaves by.
    public var interfaceIndex: Int32
    /// The gateway's address.
    public var address: IPAddress

    public init(interfaceIndex: Int32, address: IPAddress) {
        self.interfaceIndex = interfaceIndex
        self.address = address
    }
}
