// SPDX-License-Identifier: Apache-2.0
import SDEvent

/// Hands each change to the subscribers that must hear of it, on the daemon's main loop, which is where the
/// change was read: the first slice is written at once, the rest a slice per turn of the loop, so that a call
/// arriving meanwhile (a GetPath) waits for one slice of writes, not for a thousand.
///
/// Sendable: the hub may call `deliver` from any thread; the queue is loop-bound (checked).
final class FanOut: Sendable {
    /// Writes per slice: about a quarter of a millisecond of write(2)s.
    static let sliceSize = 64

    private let loop: SDEventLoop
    private let state: LoopBound<State>

    /// What waits to be written, and the source that writes the next slice on a later turn.
    private struct State {
        var queue: [(any Subscriber, Update)] = []
        var next = 0
        var source: SDEventSource?
    }

    /// Call on the loop's thread (or before it runs).
    init(loop: SDEventLoop) throws(SDEventError) {
        self.loop = loop
        state = LoopBound(State(), on: loop)
        state.value.source = try loop.sliced { [unowned self] in deliverSlice() }
    }

    func deliver(_ deliveries: [(any Subscriber, Update)]) {
        guard loop.inLoop else {
            loop.execute { self.enqueue(deliveries) }
            return
        }
        enqueue(deliveries)
    }

    /// Every change writes a slice at once: slices left for later wait for quiet turns, which a storm of kernel
    /// events may not leave, but then each of its changes moves the queue on. Past `backlogBound` waiting
    /// deliveries, those a newer one for the same subscriber supersedes are dropped (a path is state: the newest
    /// wins), so a storm with many subscribers queues at most one delivery per subscriber and change in flight.
    private func enqueue(_ deliveries: [(any Subscriber, Update)]) {
        if state.value.queue.count - state.value.next + deliveries.count > Self.backlogBound {
            let superseded = Set(deliveries.map { ObjectIdentifier($0.0) })
            state.value.queue = state.value.queue[state.value.next...].filter {
                !superseded.contains(ObjectIdentifier($0.0))
            }
            state.value.next = 0
        }
        state.value.queue.append(contentsOf: deliveries)
        deliverSlice()
    }

    /// Waiting deliveries before superseded ones are dropped: far more than a change to every subscriber of a
    /// large host, so subscribers that keep up see every state.
    static let backlogBound = 65_536

    private func deliverSlice() {
        var slice: ArraySlice<(any Subscriber, Update)>
        do {
            let queued = state.value
            let end = min(queued.queue.count, queued.next + Self.sliceSize)
            slice = queued.queue[queued.next..<end]
            state.value.next = end
        }
        // Written outside the state: a subscriber's write may close its connection, which touches nothing here.
        for (subscriber, update) in slice { subscriber.deliver(update) }
        slice = []
        if state.value.next == state.value.queue.count {
            state.value.queue.removeAll(keepingCapacity: state.value.queue.count <= 4096)
            state.value.next = 0
        } else {
            state.value.source?.armOnce()
        }
    }
}
