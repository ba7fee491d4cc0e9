// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// A pthread mutex with a condition variable whose timed waits run on CLOCK_MONOTONIC: pathmond's state writer
/// sleeps on it until work arrives or a deferred write is due, and `WakeUp` is made of it. (Foundation's
/// NSCondition waits until a wall-clock Date, and a clock set back an hour would hold a write back an hour;
/// Synchronization has no condition.)
public final class MonotonicCondition: @unchecked Sendable {
    // @unchecked: the pthread objects are the synchronisation; they stay at one address for the object's life.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    /// With the lock held: releases it until signalled or, with a timeout, until that much time has passed, and
    /// takes it again. May return early (a spurious wake-up): callers wait in a loop that checks their state.
    public func wait(timeout: Duration? = nil) {
        guard let timeout else {
            pthread_cond_wait(condition, mutex)
            return
        }
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let (seconds, attoseconds) = max(timeout, .zero).components
        // Capped at a century: a wait "for ever" given as a duration must not overflow time_t.
        let wholeSeconds = min(seconds, 100 * 365 * 86_400)
        let nanoseconds = Int(deadline.tv_nsec) + Int(attoseconds / 1_000_000_000)
        deadline.tv_sec += Int(wholeSeconds) + nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        pthread_cond_timedwait(condition, mutex, &deadline)
    }

    /// Wakes one waiter. Called after `unlock()` once the waiter's state is changed under the lock, so that the
    /// waiter does not wake only to sleep again on the lock the caller still holds.
    public func signal() { pthread_cond_signal(condition) }

    /// Wakes every waiter (the writer, and a `stop` waiting for it to finish); as `signal()`, best after `unlock()`.
    public func broadcast() { pthread_cond_broadcast(condition) }
}
