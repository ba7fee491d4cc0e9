// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// A lock that guards no stored value: a stretch of work two threads must not interleave. Not `Locked<Void>`: the
/// exclusivity instrumentation ThreadSanitizer adds to `Locked`'s `inout` access gives a zero-sized value the
/// object's own address, so every use of a `Locked<Void>` from a second thread read to TSan as a race with the
/// first (CI's TSan run, the policy thread against the main loop in `PathHub.update`). On a pthread mutex for the
/// reason `Locked` gives. Not reentrant.
public final class Lock: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` holding the lock; inlinable for the reason `Locked.withLock` gives.
    @inlinable
    public func withLock<Result, E: Error>(_ body: () throws(E) -> Result) throws(E) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
