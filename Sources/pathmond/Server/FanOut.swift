// SPDX-License-Identifier: Apache-2.0
import SDEvent

/// Hands each change to the subscribers that must hear of it, on the daemon's main loop, which is where the
/// change was read: the first slice is written at once, the rest a slice per turn of the loop, so that a call
/// arriving meanwhile (a GetPath) waits for one slice of writes, not for a thousand.
///
/// @unchecked Sendable: the hub may call `deliver` from any thread; the queue is touched on the loop only.
final class FanOut: @unchecked Sendable {
    /// Writes per slice: about a quarter of a millisecond of write(2)s.
    static let sliceSize = 64

    private let loop: SDEventLoop
    private var queue: [(any Subscriber, Update)] = []
    private var next = 0
    private var source: SDEventSource?

    /// Call on the loop's thread (or before it runs).
    init(loop: SDEventLoop) throws(SDEventError) {
        self.loop = loop
        source = try loop.sliced { [unowned self] in deliverSlice() }
    }

    func deliver(_ deliveries: [(any Subscriber, Update)]) {
        guard loop.inLoop else {
            let deliveries = UncheckedTransfer(deliveries)
            loop.execute { self.enqueue(deliveries.value) }
            return
        }
        enqueue(deliveries)
    }

    /// Every change writes a slice at once: slices left for later wait for quiet turns, which a storm of kernel
    /// events may not leave, but then each of its changes moves the queue on. Past `backlogBound` waiting
    /// deliveries, those a newer one for the same subscriber supersedes are dropped (a path is state: the newest
    /// wins), so a storm with many subscribers queues at most one delivery per subscriber and change in flight.
    private func enqueue(_ deliveries: [(any Subscriber, Update)]) {
        if queue.count - next + deliveries.count > Self.backlogBound {
            let superseded = Set(deliveries.map { ObjectIdentifier($0.0) })
            queue = queue[next...].filter { !superseded.contains(ObjectIdentifier($0.0)) }
            next = 0
        }
        queue.append(contentsOf: deliveries)
        deliverSlice()
    }

    /// Waiting deliveries before superseded ones are dropped: far more than a change to every subscriber of a
    /// large host, so subscribers that keep up see every state.
    static let backlogBound = 65_536

    private func deliverSlice() {
        let end = min(queue.count, next + Self.sliceSize)
        while next < end {
            let (subscriber, update) = queue[next]
            next += 1
            subscriber.deliver(update)
        }
        if next == queue.count {
            queue.removeAll(keepingCapacity: queue.count <= 4096)
            next = 0
        } else {
            source?.armOnce()
        }
    }
}
