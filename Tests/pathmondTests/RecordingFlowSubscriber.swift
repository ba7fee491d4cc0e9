// SPDX-License-Identifier: Apache-2.0
import Locking
import PathModel

@testable import pathmond

/// A flow's subscriber that keeps every update the hub hands it, in order.
final class RecordingFlowSubscriber: Subscriber, Sendable {
    let interest: Interest
    let updates = Locked<[Update]>([])

    init(_ flow: Flow) { interest = .flow(flow) }

    func deliver(_ update: Update) { updates.withLock { $0.append(update) } }

    /// The flow statuses delivered so far.
    var statuses: [FlowStatus] {
        updates.withLock { updates in
            updates.compactMap { if case .flow(let status) = $0.value { status } else { nil } }
        }
    }
}
