// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// A value behind a lock, as Synchronization's `Mutex` holds one, on a pthread mutex. ThreadSanitizer intercepts
/// pthread_mutex_lock, so it sees the order the lock imposes; `Mutex`'s futex lives in the uninstrumented standard
/// library, and every access under it read to TSan as a race (three such reports in one run of the unit suites,
/// both sides of each under the same `Mutex`). Same use as `Mutex`: `withLock`, not reentrant. A closure is kept
/// in a class, not as the value itself: a function value that goes through the generic `inout` comes back wrapped
/// in reabstraction thunks, two more on every call (as with `Mutex`).
public final class Locked<Value>: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline var value: Value

    public init(_ value: sending Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        self.value = value
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock. Inlinable, so that each caller's use is specialized: called
    /// through the generic entry point, the ten to fifteen locks a path change takes cost 700 instructions of
    /// metadata, indirect results and thunks (issue 41).
    @inlinable
    public func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E)
        -> sending Result
    {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
