// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// CLOCK_MONOTONIC as a `Duration` since an arbitrary start: time that only moves forward, for deadlines and
/// periods. Not `ContinuousClock`, whose one use links Swift's concurrency runtime into a program (0.25 MB of
/// pathctl, which times `exec`'s settle and grace periods with this).
public enum MonotonicClock {
    public static func now() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }
}
