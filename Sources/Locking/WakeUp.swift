// SPDX-License-Identifier: Apache-2.0
/// A counting wake-up between threads: `signal()` adds one, `wait` takes one, blocking until there is one or its
/// time is up. What a semaphore is, on a `MonotonicCondition` (a change of the wall clock neither cuts a wait short
/// nor stretches it). The client library's core and pathctl block with it instead of Dispatch's semaphore: a
/// program that waits this way links neither Dispatch nor Swift's concurrency runtime (0.75 MB of pathctl; issue
/// 41).
public final class WakeUp: @unchecked Sendable {
    // @unchecked: `pending` is only touched with the condition's lock held.
    private let condition = MonotonicCondition()
    /// Signals not yet taken.
    private var pending = 0

    public init() {}

    /// Wakes one waiter, or the next to wait.
    public func signal() {
        condition.lock()
        pending += 1
        condition.unlock()
        // After the unlock: a waiter woken while the lock is held sleeps again on the lock until the unlock wakes it
        // a second time. `pending` changed under the lock, where a waiter reads it before it sleeps.
        condition.signal()
    }

    /// Takes a signal, waiting at most `timeout` for one (nil: for ever); false if none came in time.
    @discardableResult
    public func wait(timeout: Duration? = nil) -> Bool {
        let deadline = timeout.map { MonotonicClock.now() + $0 }
        condition.lock()
        defer { condition.unlock() }
        while pending == 0 {
            // A spurious wake-up, or one for a signal another waiter took, waits again for what is left.
            guard let deadline else {
                condition.wait()
                continue
            }
            let left = deadline - MonotonicClock.now()
            guard left > .zero else { return false }
            condition.wait(timeout: left)
        }
        pending -= 1
        return true
    }
}
