// SPDX-License-Identifier: Apache-2.0
internal import CSystemd
import Glibc
import Locking
import Synchronization

/// The daemon's main loop: sd-event(3), the event loop systemd's own daemons run. Every source of events (netlink,
/// inotify, signals, D-Bus, one-shot timers) is a descriptor or timer registered here, so one thread sleeps in one
/// epoll_wait until something happens: no thread pool, no periodic wake-up.
///
/// Threading invariant (why this is `@unchecked Sendable`): sd-event is not thread-safe. Sources are added, changed
/// and removed only on the loop's thread (the one in `run()`, or the creating thread before `run()`); other threads
/// reach the loop through `execute(_:)`, which queues the job and wakes the loop through an eventfd.
public final class SDEventLoop: @unchecked Sendable {
    let event: OpaquePointer
    /// When the loop's slices last had a turn (`sliced`).
    let sliceLedger = SliceLedger()
    private let wakeDescriptor: Int32
    private let jobs = Locked<[@Sendable () -> Void]>([])
    private var wakeSource: SDEventSource?
    /// The thread running `run()`; zero before and after.
    private let owner = Atomic<UInt>(0)

    /// Makes a loop; nothing runs until `run()`.
    public init() throws(SDEventError) {
        var event: OpaquePointer?
        try SDEventError.check(sd_event_new(&event))
        self.event = event!
        wakeDescriptor = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeDescriptor >= 0 else {
            sd_event_unref(self.event)
            throw SDEventError(errno: errno)
        }
        wakeSource = try watchReadable(wakeDescriptor) { [unowned self] in runQueuedJobs() }
    }

    deinit {
        wakeSource = nil
        close(wakeDescriptor)
        sd_event_unref(event)
    }

    /// Runs until `exit(code:)`; returns the code. Call once, on the thread that is to own the loop.
    @discardableResult
    public func run() -> Int32 {
        owner.store(UInt(pthread_self()), ordering: .releasing)
        defer { owner.store(0, ordering: .releasing) }
        runQueuedJobs()
        return sd_event_loop(event)
    }

    /// Whether the caller is on the loop's thread (while it runs).
    public var inLoop: Bool { owner.load(ordering: .acquiring) == UInt(pthread_self()) }

    /// Whether `run()` is running, on some thread.
    public var isRunning: Bool { owner.load(ordering: .acquiring) != 0 }

    /// Ends `run()` after the current iteration. From any thread.
    public func exit(code: Int32 = 0) {
        execute { [self] in _ = sd_event_exit(event, code) }
    }

    /// Runs `job` on the loop's thread, after what it is doing now, in the order jobs were queued. From any thread.
    public func execute(_ job: @escaping @Sendable () -> Void) {
        let wasEmpty = jobs.withLock { jobs in
            jobs.append(job)
            return jobs.count == 1
        }
        // One wake-up per batch of jobs: the loop drains them all before it sleeps again.
        if wasEmpty { _ = eventfd_write(wakeDescriptor, 1) }
    }

    /// Runs `job` on the loop's thread and waits for it; for callers that are not on the loop (tests, shutdown).
    /// A loop that is not running (not yet, or any more) has no thread: the job runs at once, on the caller's.
    public func sync<Result: Sendable>(_ job: @escaping @Sendable () -> Result) -> Result {
        if inLoop || owner.load(ordering: .acquiring) == 0 { return job() }
        let done = SDEventCompletion<Result>()
        execute { done.complete(job()) }
        return done.wait()
    }

    private func runQueuedJobs() {
        var value: eventfd_t = 0
        _ = eventfd_read(wakeDescriptor, &value)
        while true {
            let batch = jobs.withLock { jobs in
                defer { jobs = [] }
                return jobs
            }
            if batch.isEmpty { return }
            for job in batch { job() }
        }
    }

    /// Calls `handler` on the loop whenever `descriptor` is readable (level-triggered: a handler that leaves data
    /// is called again). The descriptor stays the caller's: it must outlive the returned source.
    public func watchReadable(_ descriptor: Int32, _ handler: @escaping () -> Void) throws(SDEventError)
        -> SDEventSource
    {
        try watch(descriptor, for: .readable) { _ in handler() }
    }

    /// Calls `handler` once, on the loop, after `delay` (CLOCK_MONOTONIC). Dropping the source cancels it.
    public func schedule(after delay: Duration, _ handler: @escaping () -> Void) throws(SDEventError) -> SDEventSource {
        let made = SDEventSource { _ in handler() }
        var source: OpaquePointer?
        let (seconds, attoseconds) = delay.components
        let microseconds = UInt64(max(0, seconds)) * 1_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000_000)
        // A millisecond of slack lets the kernel coalesce this timer's wake-up with others.
        try SDEventError.check(
            sd_event_add_time_relative(
                event, &source, CLOCK_MONOTONIC, microseconds, 1_000, timeCallback, made.pointer))
        made.source = source
        return made
    }

    /// Calls `handler` on the loop for each delivery of `signal`, through signalfd. The signal must already be
    /// blocked in every thread (block it before starting any: see `blockSignals`).
    public func onSignal(_ signal: Int32, _ handler: @escaping () -> Void) throws(SDEventError) -> SDEventSource {
        let made = SDEventSource { _ in handler() }
        var source: OpaquePointer?
        try SDEventError.check(sd_event_add_signal(event, &source, signal, signalCallback, made.pointer))
        made.source = source
        return made
    }

    /// Blocks `signals` in the calling thread and every thread it starts afterwards, so that they are delivered
    /// only through the loop's signalfd. Call first thing in `main`, before any thread exists.
    public static func blockSignals(_ signals: [Int32]) {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// The raw sd_event, for libraries that attach to it (sd_bus_attach_event).
    public var unsafeRawEvent: OpaquePointer { event }
}

/// A registered source; removed from the loop when released or cancelled. Use on the loop's thread only. sd-event
/// holds only a raw pointer to it (its userdata): whoever holds the source keeps it, and its handler, alive (one
/// object per source, not two: ten thousand idle subscribers each hold one).
public final class SDEventSource {
    /// Called with epoll's event bits for an I/O source, 0 for any other.
    let handler: (UInt32) -> Void
    /// Called before each turn of the loop while the source is on (sd-event's prepare callback), if set.
    var prepare: ((OpaquePointer) -> Void)?
    /// sd-event's source, set once it is made with this object's `pointer`.
    var source: OpaquePointer?

    init(_ handler: @escaping (UInt32) -> Void) { self.handler = handler }

    var pointer: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    deinit { cancel() }

    /// Stops the source for good. Safe to call more than once.
    public func cancel() {
        guard let source else { return }
        sd_event_source_disable_unref(source)
        self.source = nil
    }

    /// Pauses (false) or resumes (true) a source without removing it.
    public func setEnabled(_ enabled: Bool) {
        guard let source else { return }
        _ = sd_event_source_set_enabled(source, Int32(enabled ? SD_EVENT_ON : SD_EVENT_OFF))
    }
}

func call(_ userdata: UnsafeMutableRawPointer?, events: UInt32 = 0) -> Int32 {
    guard let userdata else { return 0 }
    // A handler may drop its own source (a client's connection closing in its read handler): the source, and the
    // closure in it, must outlive the call.
    let source = Unmanaged<SDEventSource>.fromOpaque(userdata).takeUnretainedValue()
    withExtendedLifetime(source) { source.handler(events) }
    return 0
}

private let timeCallback: sd_event_time_handler_t = { _, _, userdata in call(userdata) }
private let signalCallback: sd_event_signal_handler_t = { _, _, userdata in call(userdata) }

extension SDEventLoop {
    /// Cancels `sources` on the loop's thread, then releases `keepAlive` (say, the descriptor they watched): for a
    /// deinit that may run on any thread, while sd-event may only be touched on the loop's own.
    public func dispose(_ sources: [SDEventSource?], keepingUntilThen keepAlive: AnyObject? = nil) {
        let parts = UncheckedTransfer((sources, keepAlive))
        execute {
            for source in parts.value.0 { source?.cancel() }
            withExtendedLifetime(parts.value.1) {}
        }
    }
}

/// Moves a value that is used by one thread at a time to the loop's thread.
public struct UncheckedTransfer<Value>: @unchecked Sendable {
    public let value: Value
    public init(_ value: Value) { self.value = value }
}

/// A handler that is called on a loop's thread only, handed to that loop from the thread that registers it.
public struct UncheckedHandler<Value>: @unchecked Sendable {
    public let call: (Value) -> Void
    public init(_ call: @escaping (Value) -> Void) { self.call = call }
}
