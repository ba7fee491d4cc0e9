import SDEvent
import Synchronization

/// Brings the history file and the metrics textfile up to date on the main loop: after a change of the hub, at
/// most once a second (a burst of changes costs one write, the last change is always written), again at the
/// instant the writers ask for when a write is owed but not yet allowed, and once more on stop. While nothing is
/// owed there is no timer: an idle daemon never wakes for its files. The writes block (the history file is
/// rewritten whole), so their rate, not the rate of changes, is what the event path pays.
final class StateWriterService: @unchecked Sendable {
    // @unchecked: `timer` is used only on the loop's thread; `isQueued` is atomic.
    private let writers: StateWriters
    private let loop: SDEventLoop
    private let clock = ContinuousClock()
    private var timer: SDEventSource?
    private var lastFlush: ContinuousClock.Instant?
    /// The shortest time between two flushes.
    static let interval = Duration.seconds(1)
    private let isQueued = Atomic<Bool>(false)

    init(writers: StateWriters, loop: SDEventLoop) {
        self.writers = writers
        self.loop = loop
    }

    /// Something the files show may have changed. From any thread.
    func changed() {
        guard !isQueued.exchange(true, ordering: .acquiringAndReleasing) else { return }
        loop.execute { [self] in
            isQueued.store(false, ordering: .releasing)
            flush()
        }
    }

    /// The last write, owed whatever the once-a-second limit says: an instant past it lifts the limit.
    func stop() {
        timer = nil
        writers.flush(now: clock.now + .seconds(2))
    }

    private func flush() {
        let now = clock.now
        if let lastFlush, now < lastFlush + Self.interval {
            schedule(at: lastFlush + Self.interval, now: now)
            return
        }
        lastFlush = now
        guard let next = writers.flush(now: now) else { return }
        // Owed but not yet allowed: one timer for then.
        schedule(at: next, now: now)
    }

    /// One timer at a time: a burst meanwhile finds it set.
    private func schedule(at instant: ContinuousClock.Instant, now: ContinuousClock.Instant) {
        guard timer == nil else { return }
        timer = try? loop.schedule(after: max(.zero, instant - now)) { [weak self] in
            self?.timer = nil
            self?.flush()
        }
    }
}
