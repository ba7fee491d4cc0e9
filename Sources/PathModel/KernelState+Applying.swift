// SPDX-License-Identifier: Apache-2.0
/// Applying events: one, a batch, or a batch with the messages that changed nothing taken out; each applied by
/// `applyWithoutPruning` (`KernelState+Events.swift`), then the neighbours no route leaves by any more released.
extension KernelState {
    /// Applies one kernel event; returns the interfaces it touched. Only the neighbours of gateways are kept (what
    /// names a wired network), so a busy LAN's table costs nothing: an entry for an address no route goes through
    /// is dropped on arrival, and one whose route went is released.
    @discardableResult
    public mutating func apply(_ event: KernelEvent) -> KernelChanges {
        var changes = KernelChanges()
        apply(event, &changes)
        return changes
    }

    /// Applies events in order; returns the interfaces they touched (one set for the batch, not one per event).
    @discardableResult
    public mutating func apply<Events: Sequence<KernelEvent>>(_ events: Events) -> KernelChanges {
        applyInOrder(events)
    }

    /// The same for an array, what the daemon passes: specialized here, where the generic form called from another
    /// module walked the batch through unspecialized witnesses (2,700 instructions a route flip).
    @discardableResult
    public mutating func apply(_ events: [KernelEvent]) -> KernelChanges {
        applyInOrder(events)
    }

    /// Applies events in order, as `apply(_:)` does, and takes out of `events` the neighbour and address messages
    /// that changed nothing: an entry for a host no route leaves by, a gateway's entry as it was (its NUD state,
    /// which the state does not keep, moving between REACHABLE and STALE), a gateway's entry going (kept while a
    /// route leaves by it), an address refreshed with new lifetimes (a lease renewed, a router advertisement). The
    /// events left are what another state fed the same events needs to end where this one does: the route
    /// follower applies each batch here first and hands the rest on, so that a LAN's neighbour churn and every
    /// renewal stop there instead of deriving the path again (`KernelStateNoOpTests`).
    public mutating func applyDroppingNoOps(_ events: inout [KernelEvent]) -> KernelChanges {
        var changes = KernelChanges()
        // Compacted in place: `kept` events stay at the front; none is moved until one is dropped.
        var kept = 0
        for position in events.indices {
            switch events[position] {
            case .neighbourChanged, .neighbourRemoved, .addressAdded:
                // Its own changes, apart: a table entry it changed on an interface the batch touched already
                // would not show in the batch's.
                var own = KernelChanges()
                apply(events[position], &own)
                if own.isEmpty { continue }
                changes.formUnion(own)
            default:
                apply(events[position], &changes)
            }
            if kept != position { events.swapAt(kept, position) }
            kept += 1
        }
        // All of them, most often (one LAN host's entry): the batch let go rather than copied to be emptied.
        if kept == 0 {
            events = []
        } else if kept < events.count {
            events.removeSubrange(kept...)
        }
        return changes
    }

    private mutating func applyInOrder<Events: Sequence<KernelEvent>>(_ events: Events) -> KernelChanges {
        var changes = KernelChanges()
        for event in events { apply(event, &changes) }
        return changes
    }

    private mutating func apply(_ event: KernelEvent, _ changes: inout KernelChanges) {
        applyWithoutPruning(event, &changes)
        switch event {
        case .neighbourChanged, .neighbourRemoved, .addressAdded, .routeDecisions: break
        default: releaseUnusedNeighbours(&changes)
        }
    }

    private mutating func releaseUnusedNeighbours(_ changes: inout KernelChanges) {
        guard !tables.neighbourTable.isEmpty else { return }
        // Most often every entry is a gateway's: no list made then (two a route flip, the follower's and the
        // tracker's).
        // The first found held apart: a route flip's delete releases one gateway's entry, and a list for it was
        // an allocation.
        var first: NeighbourKey?
        var more: [NeighbourKey] = []
        for key in tables.neighbourTable.keys where !isGateway(key) {
            if first == nil { first = key } else { more.append(key) }
        }
        guard let first else { return }
        release(first, &changes)
        for key in more { release(key, &changes) }
    }

    private mutating func release(_ key: NeighbourKey, _ changes: inout KernelChanges) {
        guard let released = tables.neighbourTable.removeValue(forKey: key) else { return }
        changes.releasedNeighbours.append(released)
        changes.interfaces.insert(key.interfaceIndex)
    }
}
