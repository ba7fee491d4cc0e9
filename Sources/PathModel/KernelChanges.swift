// SPDX-License-Identifier: Apache-2.0
/// What applying kernel events changed of what an interface's status reads (its link, addresses, default routes and
/// the neighbours of its gateways): the first edges of the dependency graph in docs/architecture.md. Route
/// decisions are not named here: the tracker compares the kernel's choice before and after.
public struct KernelChanges: Sendable, Hashable {
    /// The interfaces touched, added and removed ones included.
    public internal(set) var interfaces = InterfaceIndexes()
    /// Whether everything may have changed (a snapshot replaced the state).
    public internal(set) var all = false
    /// Whether a link came, went or changed more than its state (its flags and operational state), or an address
    /// changed: what readers of the interfaces' facts alone (the lease, portal and modem look-ups) wait for.
    public internal(set) var linksOrAddresses = false
    /// The links whose state alone changed (a carrier lost, a link set down): what reads a link's state (its
    /// Ethernet speed, negotiated again with the carrier) looks at, and nothing else of the facts.
    public internal(set) var linkStates = InterfaceIndexes()
    /// The gateways' neighbour entries dropped because no route leaves by them any more, each as last known: what
    /// the route follower keeps, should the route come back (`GatewayNeighbours`).
    public internal(set) var releasedNeighbours: [Neighbour] = []

    public init() {}

    /// Nothing changed: the events applied left the state as it was.
    var isEmpty: Bool {
        interfaces.isEmpty && !all && !linksOrAddresses && linkStates.isEmpty && releasedNeighbours.isEmpty
    }

    /// Adds what a later event of the same batch changed.
    mutating func formUnion(_ other: KernelChanges) {
        interfaces.formUnion(other.interfaces)
        all = all || other.all
        linksOrAddresses = linksOrAddresses || other.linksOrAddresses
        linkStates.formUnion(other.linkStates)
        releasedNeighbours += other.releasedNeighbours
    }
}
