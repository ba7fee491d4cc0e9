// SPDX-License-Identifier: Apache-2.0
import PathModel

extension KernelEvent {
    /// Whether the event is a link's (changed or removed): what the caches that fill in links look at. Most batches
    /// hold none (a route flip), and mapping one anyway made two new arrays of events per batch.
    var isLinkEvent: Bool {
        switch self {
        case .linkChanged, .linkRemoved: true
        default: false
        }
    }
}

extension [KernelEvent] {
    /// Lets `changed` fill in each changed link in place, and tells `removed` each removed link's index. The event
    /// lets go of its link first, so that the link's box is held once and changes without a copy: mapped into a new
    /// array, each cache made an array of events and a copy of the link's box on every carrier flip.
    mutating func updateLinks(_ changed: (inout Link) -> Void, removed: (Int32) -> Void) {
        for position in indices {
            if case .linkRemoved(let index) = self[position] {
                removed(index)
                continue
            }
            guard case .linkChanged = self[position] else { continue }
            // Taken out whole, a placeholder left: a link bound from the element in place was a second hold on
            // its box (the switch's copy of the event), and the change copied the box all the same.
            var event = KernelEvent.linkRemoved(index: 0)
            swap(&event, &self[position])
            // Bound by a `guard case` from the consumed event, the link is moved out (a `switch` over it copied the
            // box again); the event is a changed link, as checked above.
            guard case .linkChanged(var link) = consume event else { preconditionFailure("a changed link") }
            changed(&link)
            self[position] = .linkChanged(link)
        }
    }
}
