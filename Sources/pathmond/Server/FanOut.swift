// SPDX-License-Identifier: Apache-2.0
import SDEvent

/// One change for one watched interest: its subscribers as they were when it was published, and the update. The
/// subscribers are the interest's own dictionary: taking it costs a retain, not a copy (the hub's next change to
/// them copies on write), so that publishing to 10,000 subscribers costs no more than to one before the first
/// write.
struct Delivery: Sendable {
    /// The interest's box, which says which older deliveries a newer one supersedes.
    let interest: ObjectIdentifier
    let subscribers: [ObjectIdentifier: any Subscriber]
    let update: Update
}

/// Hands each change to the subscribers that must hear of it, on the daemon's main loop, which is where the
/// change was read: the first slice is written at once, the rest a slice per turn of the loop, so that a call
/// arriving meanwhile (a GetPath) waits for one slice of writes, not for a thousand. The subscribers of a delivery
/// are walked as they are written, never listed first.
///
/// Sendable: the hub may call `deliver` from any thread; the queue is loop-bound (checked).
final class FanOut: Sendable {
    /// Writes per slice: about a quarter of a millisecond of write(2)s.
    static let sliceSize = 64

    private let loop: SDEventLoop
    private let state: LoopBound<State>

    /// What waits to be written (`queue` from `next`, the first of them from `position`), and the source that
    /// writes the next slice on a later turn.
    private struct State {
        var queue: [Delivery] = []
        var next = 0
        var position: Dictionary<ObjectIdentifier, any Subscriber>.Index?
        var source: SDEventSource?
    }

    /// Call on the loop's thread (or before it runs).
    init(loop: SDEventLoop) throws(SDEventError) {
        self.loop = loop
        state = LoopBound(State(), on: loop)
        state.value.source = try loop.sliced { [unowned self] in deliverSlice() }
    }

    func deliver(_ deliveries: [Delivery]) {
        guard loop.inLoop else {
            loop.execute { self.enqueue(deliveries) }
            return
        }
        enqueue(deliveries)
    }

    /// Every change writes a slice at once: slices left for later wait for quiet turns, which a storm of kernel
    /// events may not leave, but then each of its changes moves the queue on. Past `backlogBound` waiting
    /// deliveries, those a newer one for the same interest supersedes are dropped (a path is state: the newest
    /// wins, and it goes to every subscriber the older one had not reached yet), so a storm queues at most one
    /// delivery per interest and change in flight.
    private func enqueue(_ deliveries: [Delivery]) {
        if state.value.queue.count - state.value.next + deliveries.count > Self.backlogBound {
            let superseded = Set(deliveries.map(\.interest))
            let first = state.value.next
            let kept = state.value.queue.indices[first...].filter {
                !superseded.contains(state.value.queue[$0].interest)
            }
            // The delivery under way keeps its place only if it stays.
            if kept.first != first { state.value.position = nil }
            state.value.queue = kept.map { state.value.queue[$0] }
            state.value.next = 0
        }
        state.value.queue.append(contentsOf: deliveries)
        deliverSlice()
    }

    /// Waiting deliveries (one per interest and change) before superseded ones are dropped: far more than the
    /// interests of a large host, so subscribers that keep up see every state.
    static let backlogBound = 16_384

    private func deliverSlice() {
        do {
            // The slice is taken before anything is written: the queue's place moves past it first, so a write that
            // comes back here (a closed connection, a change it causes) starts after it. Then it is written from
            // the queue as it was, walked again, not listed (an array of 64 subscribers and updates was allocated
            // for every change).
            let queued = state.value
            var end = (next: queued.next, position: queued.position)
            var taken = 0
            while taken < Self.sliceSize && end.next < queued.queue.count {
                let subscribers = queued.queue[end.next].subscribers
                var position = end.position ?? subscribers.startIndex
                while taken < Self.sliceSize && position != subscribers.endIndex {
                    position = subscribers.index(after: position)
                    taken += 1
                }
                end = position == subscribers.endIndex ? (end.next + 1, nil) : (end.next, position)
            }
            state.value.next = end.next
            state.value.position = end.position
            // Written outside the state: a subscriber's write may close its connection, which touches nothing here.
            var next = queued.next
            var position = queued.position
            while next < end.next || (next == end.next && end.position != nil && position != end.position) {
                let delivery = queued.queue[next]
                let stop = next == end.next ? end.position! : delivery.subscribers.endIndex
                var at = position ?? delivery.subscribers.startIndex
                while at != stop {
                    delivery.subscribers[at].value.deliver(delivery.update)
                    at = delivery.subscribers.index(after: at)
                }
                next += 1
                position = nil
            }
        }
        if state.value.next == state.value.queue.count {
            state.value.queue.removeAll(keepingCapacity: state.value.queue.count <= 256)
            state.value.next = 0
        } else {
            state.value.source?.armOnce()
        }
    }
}
