// SPDX-License-Identifier: Apache-2.0
/// What the tracker's consumers read from it apart from the path: the interfaces as another user's packets see
/// them, and statuses found by index.
extension PathTracker {
    /// The interfaces as `user`'s packets see them: the system's unless the kernel routes that user otherwise
    /// (a `uidrange` rule), which only a user whose probes were asked can show.
    public func interfaces(forUser user: UInt32?) -> [InterfaceStatus] {
        guard let user, user != RouteQuery.systemUser else { return interfaces }
        return evaluator.interfaces(in: state, context: context, user: user) ?? interfaces
    }

    /// Whether the kernel has answered for `user`'s packets: the internet's probes asked as that user (until
    /// then, `interfaces(forUser:)` is the system's). Always true for the system's routing.
    public func knowsRouting(ofUser user: UInt32?) -> Bool {
        guard let user, user != RouteQuery.systemUser else { return true }
        return RouteQuery.internetProbes(user: user).contains { state.decisions[$0] != nil }
    }

    /// The statuses of the interfaces with these indexes, in index order, each found by halving: a carrier flap's
    /// hints look at its own link, and on a host of 200 interfaces a filter over all of them hashed every index.
    /// Concrete, not generic over the sequence: called from the daemon's module, a generic one sorted through
    /// the unspecialized standard library (3,000 instructions for one index).
    public func interfaces(withIndexes indexes: InterfaceIndexes) -> [InterfaceStatus] {
        let all = interfaces
        var found: [InterfaceStatus] = []
        found.reserveCapacity(indexes.count)
        func add(_ index: Int32) {
            let position = Self.insertionPoint(of: index, in: all)
            if position < all.count && all[position].link.index == index { found.append(all[position]) }
        }
        // One index (a carrier flap's) is looked up as it is: no array of indexes made to sort.
        if indexes.count > 1 {
            for index in indexes.sorted() { add(index) }
        } else {
            for index in indexes { add(index) }
        }
        return found
    }
}
