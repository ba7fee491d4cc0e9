// SPDX-License-Identifier: Apache-2.0
import Locking

/// Events from several threads (the path watch's, a child's waiter, the signal thread), taken one at a time, in
/// order, on the caller's: what the verbs that follow the path (`monitor`, `wait`, `exec`) block on.
final class EventQueue<Event: Sendable>: Sendable {
    private let events = Locked<[Event]>([])
    private let available = WakeUp()

    func post(_ event: Event) {
        events.withLock { $0.append(event) }
        available.signal()
    }

    /// The oldest event, waiting for one if there is none, at most `timeout` (nil: for ever); nil if none came.
    func next(within timeout: Duration? = nil) -> Event? {
        guard available.wait(timeout: timeout) else { return nil }
        return events.withLock { $0.removeFirst() }
    }
}
