// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// A counting wake-up between threads: `signal()` adds one, `wait` takes one, blocking until there is one or its
/// time is up. What a semaphore is, on a pthread mutex and a condition variable that times its waits on the
/// monotonic clock (a change of the wall clock neither cuts a wait short nor stretches it). The client library and
/// pathctl block with it instead of Dispatch's semaphore: a program that waits this way links neither Dispatch nor
/// Swift's concurrency runtime (0.75 MB of pathctl; issue 41).
public final class WakeUp: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    /// Signals not yet taken; guarded by `mutex`.
    private var pending = 0

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Wakes one waiter, or the next to wait.
    public func signal() {
        pthread_mutex_lock(mutex)
        pending += 1
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Takes a signal, waiting at most `timeout` for one (nil: for ever); false if none came in time.
    @discardableResult
    public func wait(timeout: Duration? = nil) -> Bool {
        let deadline = timeout.map(Self.deadline(after:))
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while pending == 0 {
            if var deadline {
                // ETIMEDOUT once the deadline passed; a spurious wake-up or EINTR just waits again.
                if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT && pending == 0 { return false }
            } else {
                pthread_cond_wait(condition, mutex)
            }
        }
        pending -= 1
        return true
    }

    /// `timeout` from now on the monotonic clock, as pthread_cond_timedwait takes it; a negative one is now.
    private static func deadline(after timeout: Duration) -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let (seconds, attoseconds) = max(.zero, timeout).components
        // Capped at a century: a wait "for ever" given as a duration must not overflow time_t.
        let wholeSeconds = min(seconds, 100 * 365 * 86_400)
        let nanoseconds = Int(now.tv_nsec) + Int(attoseconds / 1_000_000_000)
        return timespec(
            tv_sec: Int(now.tv_sec) + Int(wholeSeconds) + nanoseconds / 1_000_000_000,
            tv_nsec: nanoseconds % 1_000_000_000)
    }
}
