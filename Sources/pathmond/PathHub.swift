import Logging
import PathModel
import PathProtocol
import Synchronization

/// Something that receives every new path: a Varlink connection streaming WatchPath.
protocol PathSubscriber: AnyObject, Sendable {
    /// Called outside the hub's lock, from the thread that applied the kernel events.
    func deliver(_ update: PathUpdate)
}

/// A path ready to send: its model value, its encoded WatchPath reply, and a generation that only grows, so a
/// subscriber can drop an update older than one it already sent.
struct PathUpdate: Sendable {
    let generation: UInt64
    let path: Path
    let streamedReply: [UInt8]
}

/// The daemon's single source of truth: the path tracker (kernel state and current path) and the subscribers.
/// Kernel events go in through `apply`; each path change is encoded once and handed to every subscriber.
final class PathHub: Sendable {
    private struct State {
        var tracker: PathTracker
        var current: PathUpdate
        var subscribers: [ObjectIdentifier: any PathSubscriber] = [:]
        var isReady = false
        var readyWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>
    private let codec = VarlinkCodec()
    private let logger: Logger

    init(evaluator: PathEvaluator, context: NetworkContext = NetworkContext(), logger: Logger) {
        let tracker = PathTracker(evaluator: evaluator, context: context)
        let initial = PathUpdate(
            generation: 0, path: tracker.path,
            streamedReply: codec.encodeReply(Methods.PathReply(path: WirePath(tracker.path)), continues: true))
        state = Mutex(State(tracker: tracker, current: initial))
        self.logger = logger
    }

    /// Applies kernel events; when the path changes, publishes it to every subscriber. The first snapshot makes
    /// the hub ready.
    func apply(_ events: [KernelEvent]) {
        let isSnapshot = events.contains(where: \.isSnapshot)
        let waiters = update { state in
            guard !state.isReady && isSnapshot else { return [] }
            state.isReady = true
            defer { state.readyWaiters = [] }
            return state.readyWaiters
        } change: { tracker in
            tracker.apply(events)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Changes identities, detection or policy; publishes the path if that changed it.
    func updateContext(_ change: (inout NetworkContext) -> Void) {
        _ = update { _ in
            []
        } change: { tracker in
            tracker.updateContext(change)
        }
    }

    /// The identities, detection and policy in force.
    var context: NetworkContext { state.withLock { $0.tracker.context } }

    /// Runs `change` on the tracker under the lock and, if it produced a new path, encodes it once and hands it
    /// to every subscriber outside the lock. Generations keep subscribers from going back to an older path when
    /// two callers publish at once.
    private func update(
        _ prepare: (inout State) -> [CheckedContinuation<Void, Never>],
        change: (inout PathTracker) -> Path?
    ) -> [CheckedContinuation<Void, Never>] {
        let (update, subscribers, waiters) = state.withLock {
            state -> (PathUpdate?, [any PathSubscriber], [CheckedContinuation<Void, Never>]) in
            let waiters = prepare(&state)
            guard let path = change(&state.tracker) else { return (nil, [], waiters) }
            state.current = PathUpdate(
                generation: state.current.generation + 1, path: path,
                streamedReply: codec.encodeReply(Methods.PathReply(path: WirePath(path)), continues: true))
            return (state.current, Array(state.subscribers.values), waiters)
        }
        if let update {
            // Subscribers first: the log line is for people, the update is what they wait for.
            for subscriber in subscribers { subscriber.deliver(update) }
            logger.info("path changed", metadata: ["path": "\(update.path.logSummary)"])
        }
        return waiters
    }

    /// The current path.
    var current: PathUpdate { state.withLock { $0.current } }

    /// Every interface's status.
    var interfaces: [InterfaceStatus] { state.withLock { $0.tracker.interfaces } }

    /// Registers a subscriber and returns the path it starts from; later changes arrive through `deliver`.
    func subscribe(_ subscriber: any PathSubscriber) -> PathUpdate {
        state.withLock { state in
            state.subscribers[ObjectIdentifier(subscriber)] = subscriber
            return state.current
        }
    }

    /// Removes a subscriber; harmless if it was never registered.
    func unsubscribe(_ subscriber: any PathSubscriber) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: ObjectIdentifier(subscriber)) }
    }

    /// The number of live subscribers.
    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Wakes everyone waiting for readiness without making the hub ready: the daemon is stopping.
    func releaseWaiters() {
        let waiters = state.withLock { state in
            defer { state.readyWaiters = [] }
            return state.readyWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the first kernel snapshot has been applied (or `releaseWaiters` was called).
    func waitUntilReady() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                if !state.isReady { state.readyWaiters.append(continuation) }
                return state.isReady
            }
            if ready { continuation.resume() }
        }
    }
}

extension KernelEvent {
    fileprivate var isSnapshot: Bool {
        if case .snapshot = self { return true }
        return false
    }
}

extension Path {
    /// One line for the log: "satisfied via eth0,wlan0 (expensive)" or "unsatisfied: noCarrier".
    var logSummary: String {
        switch status {
        case .satisfied:
            let names = availableInterfaces.map(\.name).joined(separator: ",")
            return "satisfied via \(names)\(isExpensive ? " (expensive)" : "")"
        case .unsatisfied:
            return "unsatisfied: \(unsatisfiedReason?.rawValue ?? "unknown")"
        }
    }
}
