// SPDX-License-Identifier: Apache-2.0
import PathmondClient

#if canImport(Glibc)
    import Glibc
#endif

/// SIGINT, SIGTERM and SIGHUP for the verbs that run until one comes (`monitor`, `wait`, `exec`). A parent may have
/// left them blocked (test harnesses, some service managers), and nothing in pathctl waits on a Dispatch source
/// that would take them anyway: each such verb says what it does with them first.
enum TerminationSignals {
    static var set: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for number in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&set, number) }
        return set
    }

    /// Unblocked in this thread and the threads it starts after: `monitor` and `wait` end as their defaults say
    /// (`timeout 1 pathctl monitor` ends after a second whatever its parent's mask).
    static func unblock() {
        var set = set
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// Blocked in this thread and in those it starts after, and taken one by one (sigwait) by a thread that hands
    /// each to `handle`: `exec` forwards them to its command. Linux queues a blocked signal even while it is
    /// ignored, so neither the parent's mask nor its dispositions matter.
    static func take(_ handle: @escaping @Sendable (Int32) -> Void) {
        var set = set
        pthread_sigmask(SIG_BLOCK, &set, nil)
        let taken = set
        DetachedThread {
            var taken = taken
            while true {
                var number: Int32 = 0
                if sigwait(&taken, &number) == 0 { handle(number) }
            }
        }.start()
    }
}
