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

    init(evaluator: PathEvaluator, logger: Logger) {
        let tracker = PathTracker(evaluator: evaluator)
        let initial = PathUpdate(
            generation: 0, path: tracker.path,
            streamedReply: codec.encodeReply(Methods.PathReply(path: WirePath(tracker.path)), continues: true))
        state = Mutex(State(tracker: tracker, current: initial))
        self.logger = logger
    }

    /// Applies kernel events; when the path changes, publishes it to every subscriber.
    func apply(_ events: [KernelEvent]) {
        typealias Outcome = (PathUpdate?, [any PathSubscriber], [CheckedContinuation<Void, Never>])
        let (update, subscribers, waiters) = state.withLock { state -> Outcome in
            var waiters: [CheckedContinuation<Void, Never>] = []
            if !state.isReady && events.contains(where: \.isSnapshot) {
                state.isReady = true
                swap(&waiters, &state.readyWaiters)
            }
            guard let path = state.tracker.apply(events) else { return (nil, [], waiters) }
            state.current = PathUpdate(
                generation: state.current.generation + 1, path: path,
                streamedReply: codec.encodeReply(Methods.PathReply(path: WirePath(path)), continues: true))
            return (state.current, Array(state.subscribers.values), waiters)
        }
        for waiter in waiters { waiter.resume() }
        guard let update else { return }
        logger.info("path changed", metadata: ["path": "\(update.path.logSummary)"])
        for subscriber in subscribers { subscriber.deliver(update) }
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

    /// Returns once the first kernel snapshot has been applied.
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
