// SPDX-License-Identifier: Apache-2.0
internal import CSystemd
import Locking
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// Brings the history file and the metrics textfile up to date from a thread of its own, so that the event path
/// never waits for a disk: `changed()`, called after every update of the hub, only marks work as owed and wakes
/// the thread (a mutex and, if it sleeps, a condition signal). The thread takes what is owed itself (the new
/// history entries, the state the metrics file shows) and writes it through the sink, which keeps the
/// once-a-second limits: a burst of changes costs a few writes, and the last change is always written. While
/// nothing is owed the thread sleeps without a timeout: an idle daemon never wakes for its files.
///
/// One plain thread, not a pool, named `pathmond-state`: beside the sd-event main loop (kernel events and clients) and
/// the policy loop, the daemon's third (see docs/architecture.md). It starts with the first change, so a daemon (or a test) that never owes a write never has
/// it. `stop()` hands it the final flush and waits for it to finish.
final class StateWriterService: @unchecked Sendable {
    // @unchecked: `queue` is guarded by `condition`'s mutex.
    private struct Queue {
        /// Something may have changed since the last flush.
        var isOwed = false
        /// A write is owed but not allowed before then.
        var due: ContinuousClock.Instant?
        /// The thread sleeps without a timeout: a change must wake it.
        var isIdle = false
        var hasThread = false
        var isStopping = false
        var isFinished = false
    }

    private let sink: any StateSink
    private let logger: Logger
    private let condition = MonotonicCondition()
    private var queue = Queue()
    private let clock = ContinuousClock()
    /// How long `stop()` waits for the last writes: a hung disk must not keep the daemon from exiting.
    static let stopTimeout = Duration.seconds(10)

    init(writers sink: any StateSink, logger: Logger) {
        self.sink = sink
        self.logger = logger
    }

    /// Something the files show may have changed. From any thread; never blocks on I/O.
    func changed() {
        condition.lock()
        guard !queue.isStopping else { return condition.unlock() }
        queue.isOwed = true
        let wakes = queue.hasThread && queue.isIdle
        if !queue.hasThread {
            queue.hasThread = true
            startThread()
        }
        condition.unlock()
        // Once the lock is free: a thread woken while the lock is still held wakes only to sleep again on the lock,
        // until the unlock wakes it a second time (two wake-ups of the writer and two futex calls here, for one
        // change). Nothing is lost: `isOwed` was set under the lock, and the writer reads it there before it sleeps.
        if wakes { condition.broadcast() }
    }

    /// The last writes, owed whatever the once-a-second limits say: the thread writes everything owed and ends;
    /// this returns when it has (or after `stopTimeout`, said in the log). Without a thread, the caller writes.
    func stop() {
        condition.lock()
        defer { condition.unlock() }
        guard !queue.isStopping else { return }
        queue.isStopping = true
        guard queue.hasThread else {
            _ = sink.flush(now: clock.now, final: true)
            return
        }
        condition.broadcast()
        let deadline = clock.now + Self.stopTimeout
        while !queue.isFinished {
            let left = deadline - clock.now
            guard left > .zero else {
                logger.error("the history and metrics files were not written within \(Self.stopTimeout); exiting")
                return
            }
            condition.wait(timeout: left)
        }
    }

    /// A detached POSIX thread running `run()`: Foundation's Thread would link all of Foundation, and ICU with it,
    /// into the daemon for this one thread. The service is retained for the thread's life.
    private func startThread() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { argument in
                let service = Unmanaged<StateWriterService>.fromOpaque(argument!).takeRetainedValue()
                // The kernel keeps 15 bytes of a thread's name; `ps -L` and `top -H` show it.
                _ = pathmond_set_thread_name("pathmond-state")
                service.run()
                return nil
            }, context)
        // Only EAGAIN (no memory or thread limit reached) fails here; a daemon that cannot start one thread is done.
        precondition(result == 0, "cannot start the state writer's thread: \(String(cString: strerror(result)))")
        pthread_detach(thread)
    }

    /// The writer thread: waits for something owed and due, writes it outside the lock, and after the final
    /// flush ends.
    private func run() {
        var hasTrimmed = false
        condition.lock()
        while true {
            let now = clock.now
            let final = queue.isStopping
            guard final || queue.isOwed || queue.due.map({ $0 <= now }) == true else {
                // A deferred write sleeps until it is due (a change meanwhile needs no wake-up: it is written
                // then); nothing owed sleeps until a change.
                queue.isIdle = queue.due == nil
                condition.wait(timeout: queue.due.map { $0 - now })
                queue.isIdle = false
                continue
            }
            queue.isOwed = false
            queue.due = nil
            condition.unlock()
            let next = sink.flush(now: now, final: final)
            if !hasTrimmed {
                // The thread starts after the start-up trim, and its first write brings in code (file writing,
                // encoding, metrics) that later writes use a page at a time: drop it once more.
                hasTrimmed = true
                ResidentCode.trim()
            }
            condition.lock()
            if final {
                queue.isFinished = true
                condition.broadcast()
                break
            }
            if let next { queue.due = min(queue.due ?? next, next) }
        }
        condition.unlock()
    }
}
