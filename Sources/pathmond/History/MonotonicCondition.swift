// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// A pthread mutex with a condition variable whose timed waits run on CLOCK_MONOTONIC: the state writer's thread
/// sleeps on it until work arrives or a deferred write is due. (Foundation's NSCondition waits until a wall-clock
/// Date, and a clock set back an hour would hold a write back an hour; Synchronization has no condition.)
final class MonotonicCondition: @unchecked Sendable {
    // @unchecked: the pthread objects are the synchronisation; they stay at one address for the object's life.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
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

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }

    /// With the lock held: releases it until signalled or, with a timeout, until that much time has passed, and
    /// takes it again. May return early (a spurious wake-up): callers wait in a loop that checks their state.
    func wait(timeout: Duration? = nil) {
        guard let timeout else {
            pthread_cond_wait(condition, mutex)
            return
        }
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let (seconds, attoseconds) = max(timeout, .zero).components
        let nanoseconds = Int(deadline.tv_nsec) + Int(attoseconds / 1_000_000_000)
        deadline.tv_sec += Int(seconds) + nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        pthread_cond_timedwait(condition, mutex, &deadline)
    }

    /// Wakes every waiter (the writer, and a `stop` waiting for it to finish).
    func broadcast() { pthread_cond_broadcast(condition) }
}
