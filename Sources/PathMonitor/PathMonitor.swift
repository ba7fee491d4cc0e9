import Dispatch
import PathModel
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Watches the system's network path through pathmond, in the spirit of Network.framework's NWPathMonitor.
///
/// Use the updates as an asynchronous sequence:
/// ```swift
/// let monitor = PathMonitor()
/// for await path in monitor.paths { print(path.status) }
/// ```
/// or with a handler: `monitor.start(queue: .main) { update in ... }` and `monitor.cancel()`.
///
/// The monitor keeps one connection to pathmond. When the daemon stops or restarts it reports
/// `.unavailable` (the path is then unknown, never guessed) and reconnects by itself.
public final class PathMonitor: Sendable {
    /// What the monitor learns.
    public enum Update: Sendable, Hashable {
        /// The current path (sent on connecting, then on every change).
        case path(Path)
        /// pathmond cannot be reached; the path is unknown until it can. Carries the reason.
        case unavailable(PathmondClientError)
    }

    private struct State {
        var current: Update?
        var consumers: [UInt64: Consumer] = [:]
        var nextConsumer: UInt64 = 0
        var isStarted = false
        var isCancelled = false
        var connection: PathmondConnection?
    }

    /// Where updates go: a handler, or an AsyncStream that must also be finished on cancel.
    private struct Consumer {
        let deliver: @Sendable (Update) -> Void
        let finish: @Sendable () -> Void
    }

    private let socketPath: String
    private let retryDelay: Duration
    private let state = Mutex(State())
    /// Signalled by `cancel` to cut a reconnect wait short.
    private let wakeUp = DispatchSemaphore(value: 0)

    /// A monitor of the path pathmond serves at `socketPath`; nothing happens until it is started or iterated.
    /// - Parameter retryDelay: how long to wait between attempts to reach the daemon.
    public init(
        socketPath: String = PathmondConnection.defaultSocketPath, retryDelay: Duration = .milliseconds(250)
    ) {
        self.socketPath = socketPath
        self.retryDelay = retryDelay
    }

    /// The latest path, or nil while it is unknown (not connected yet, or the daemon is unreachable).
    public var currentPath: Path? {
        guard case .path(let path) = state.withLock({ $0.current }) else { return nil }
        return path
    }

    /// Starts watching and calls `handler` on `queue` with every update.
    public func start(queue: DispatchQueue, handler: @escaping @Sendable (Update) -> Void) {
        _ = addConsumer(Consumer(deliver: { update in queue.async { handler(update) } }, finish: {}))
    }

    /// Stops watching for good: the connection closes and every sequence ends.
    public func cancel() {
        let (connection, consumers) = state.withLock { state -> (PathmondConnection?, [Consumer]) in
            state.isCancelled = true
            defer { state.consumers = [:] }
            return (state.connection, Array(state.consumers.values))
        }
        connection?.close()
        for consumer in consumers { consumer.finish() }
        wakeUp.signal()
    }

    deinit {
        // The connection thread holds the monitor only weakly; closing its socket lets it notice and end.
        cancel()
    }

    /// Every update, starting with the current one if known. Each call makes a new independent sequence.
    public var updates: AsyncStream<Update> {
        AsyncStream { continuation in
            let token = addConsumer(
                Consumer(deliver: { continuation.yield($0) }, finish: { continuation.finish() }))
            // The stream keeps the monitor alive while someone iterates it: `for await p in PathMonitor().paths`.
            continuation.onTermination = { _ in self.removeConsumer(token) }
            if token == nil { continuation.finish() }
        }
    }

    /// The paths only: every known path, skipping the times the daemon is unreachable.
    public var paths: AsyncCompactMapSequence<AsyncStream<Update>, Path> {
        updates.compactMap { update in
            if case .path(let path) = update { return path }
            return nil
        }
    }

    /// Registers a consumer, hands it the current update, and starts the connection thread on first use.
    /// Returns nil if the monitor was cancelled. Deliveries happen under the lock (they only enqueue), so every
    /// consumer sees updates in the order the daemon sent them.
    private func addConsumer(_ consumer: Consumer) -> UInt64? {
        let (token, mustStart) = state.withLock { state -> (UInt64?, Bool) in
            guard !state.isCancelled else { return (nil, false) }
            let token = state.nextConsumer
            state.nextConsumer += 1
            state.consumers[token] = consumer
            if let current = state.current { consumer.deliver(current) }
            let mustStart = !state.isStarted
            state.isStarted = true
            return (token, mustStart)
        }
        if mustStart { startConnectionThread() }
        return token
    }

    private func removeConsumer(_ token: UInt64?) {
        guard let token else { return }
        _ = state.withLock { $0.consumers.removeValue(forKey: token) }
    }

    private func publish(_ update: Update) {
        state.withLock { state in
            guard !state.isCancelled, state.current != update else { return }
            state.current = update
            for consumer in state.consumers.values { consumer.deliver(update) }
        }
    }

    private var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// The connection loop runs on its own thread: the socket calls block, and an app's executor must not. The
    /// thread refers to the monitor weakly, and only between blocking calls, so dropping the monitor ends it.
    private func startConnectionThread() {
        let monitor = WeakMonitor(self)
        Thread { PathMonitor.connectionLoop(monitor) }.start()
    }

    private static func connectionLoop(_ monitor: WeakMonitor) {
        while let connection = monitor.value?.connect() {
            if let connection {
                do {
                    try connection.watchPath { path in
                        guard let current = monitor.value else { return false }
                        current.publish(.path(path))
                        return !current.isCancelled
                    }
                } catch {
                    monitor.value?.connectionEnded(error)
                }
            }
            guard let (wakeUp, delay) = monitor.value?.retryWait() else { return }
            _ = wakeUp.wait(timeout: .now() + .nanoseconds(Int(delay.nanoseconds)))
        }
    }

    /// One attempt to reach the daemon: nil when cancelled (stop), `.some(nil)` when it failed (retry).
    private func connect() -> PathmondConnection?? {
        guard !isCancelled else { return nil }
        do {
            let connection = try PathmondConnection(socketPath: socketPath, replyTimeout: nil)
            let accepted = state.withLock { state -> Bool in
                guard !state.isCancelled else { return false }
                state.connection = connection
                return true
            }
            return accepted ? .some(connection) : nil
        } catch {
            publish(.unavailable(error))
            return .some(nil)
        }
    }

    private func connectionEnded(_ error: PathmondClientError) {
        state.withLock { $0.connection = nil }
        if !isCancelled { publish(.unavailable(error)) }
    }

    private func retryWait() -> (DispatchSemaphore, Duration)? {
        isCancelled ? nil : (wakeUp, retryDelay)
    }
}

/// A weak reference the connection thread can hold without keeping the monitor alive.
private final class WeakMonitor: Sendable {
    weak let value: PathMonitor?
    init(_ value: PathMonitor) { self.value = value }
}

extension Duration {
    fileprivate var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
