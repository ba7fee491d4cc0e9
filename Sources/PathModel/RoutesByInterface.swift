// SPDX-License-Identifier: Apache-2.0
/// The default routes by interface index: `KernelState`'s index of its set of routes, kept with it by the state's
/// one insert and one remove. An interface holds a few routes (a default per family, the halves of a split
/// default), so they are an array, searched by comparison: as a set per interface, each route added or deleted was
/// hashed again and its interface's set allocated anew when its last route went and came back, 2,500 instructions
/// of a route flip between the tracker's state and the follower's (issue 41). An interface keeps its emptied
/// entry, and the entry's storage, for the route that comes back, until its link is deleted (`forget`).
///
/// An index, not a fact: two indexes are equal whenever the routes they index are, so a state's equality and hash
/// are its routes' (the order within an entry, and which emptied entries are kept, say nothing about the kernel).
struct RoutesByInterface: Sendable, Hashable {
    private var entries: [Int32: [DefaultRoute]] = [:]

    /// The routes out of one interface, in no particular order.
    subscript(index: Int32) -> [DefaultRoute] {
        entries[index] ?? []
    }

    /// Adds a route the set of routes did not hold.
    mutating func insert(_ route: DefaultRoute) {
        entries[route.interfaceIndex, default: []].append(route)
    }

    /// Removes a route the set of routes held.
    mutating func remove(_ route: DefaultRoute) {
        guard let position = entries[route.interfaceIndex]?.firstIndex(of: route) else { return }
        entries[route.interfaceIndex]?.remove(at: position)
    }

    /// Drops a deleted link's entry, once its routes are gone.
    mutating func forget(_ index: Int32) {
        if entries[index]?.isEmpty == true { entries[index] = nil }
    }

    static func == (_: RoutesByInterface, _: RoutesByInterface) -> Bool { true }

    func hash(into _: inout Hasher) {}
}
