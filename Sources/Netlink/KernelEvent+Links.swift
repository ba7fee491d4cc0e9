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
