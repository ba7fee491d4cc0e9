// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// The time since an arbitrary start that only moves forward (CLOCK_MONOTONIC): what `exec` times its settle and
/// grace periods with. Not `ContinuousClock`, whose one use would link Swift's concurrency runtime into pathctl.
enum Monotonic {
    static func now() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }
}
