import Logging
import PathModel
import PathProtocol
import Synchronization

/// The daemon's single source of truth: the path tracker (kernel state, identities, policy) and the subscribers.
/// Every change goes through `update`: derive what each distinct interest now sees, diff it against what was
/// published, encode the changed ones once, then hand them to their subscribers outside the lock.
final class PathHub: Sendable {
    private struct State {
        var tracker: PathTracker
        var subscribers: [ObjectIdentifier: any Subscriber] = [:]
        /// The last update per interest with live subscribers.
        var published: [Interest: Update] = [:]
        var generation: UInt64 = 0
        var isReady = false
        var readyWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>
    private let codec = VarlinkCodec()
    private let logger: Logger
    /// Every change of the system path, with its cause (recorded in `update`).
    let history: HistoryLog
    /// What the metrics file counts; the hub counts path changes and better-path events.
    let counters: DaemonCounters

    init(
        evaluator: PathEvaluator, context: NetworkContext = NetworkContext(), logger: Logger,
        history: HistoryLog = HistoryLog(), counters: DaemonCounters = DaemonCounters()
    ) {
        state = Mutex(State(tracker: PathTracker(evaluator: evaluator, context: context)))
        self.logger = logger
        self.history = history
        self.counters = counters
    }

    /// Applies kernel events and publishes what changed. The first snapshot makes the hub ready.
    func apply(_ events: [KernelEvent], cause: PathChangeCause? = nil) {
        let isSnapshot = events.contains(where: \.isSnapshot)
        let waiters = update { state in
            guard !state.isReady && isSnapshot else { return [] }
            state.isReady = true
            defer { state.readyWaiters = [] }
            return state.readyWaiters
        } change: { tracker in
            tracker.apply(events)
        } cause: {
            cause ?? .kernel(events)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Changes how interfaces are classified (a reloaded configuration), and publishes what changed.
    func setEvaluator(_ evaluator: PathEvaluator, cause: PathChangeCause = .configurationReload) {
        _ = update { _ in
            []
        } change: { tracker in
            tracker.setEvaluator(evaluator)
        } cause: {
            cause
        }
    }

    /// Changes identities, detection, resolvers or policy, and publishes what changed.
    func updateContext(cause: PathChangeCause = .unspecified, _ change: (inout NetworkContext) -> Void) {
        _ = update { _ in
            []
        } change: { tracker in
            tracker.updateContext(change)
        } cause: {
            cause
        }
    }

    /// The system path.
    var systemPath: Path { state.withLock { $0.tracker.path } }

    /// Whether the first kernel snapshot has been applied (before it, the path says nothing about the machine).
    var isReady: Bool { state.withLock { $0.isReady } }

    /// The path for a client's parameters, now.
    func path(for parameters: PathParameters) -> Path {
        state.withLock { state in
            let interfaces = state.tracker.interfaces
            return Self.value(for: .path(parameters), tracker: state.tracker, interfaces: interfaces).path!
        }
    }

    /// The identities, detection, resolvers and policy in force.
    var context: NetworkContext { state.withLock { $0.tracker.context } }

    /// Every interface's status.
    var interfaces: [InterfaceStatus] { state.withLock { $0.tracker.interfaces } }

    /// Registers a subscriber and returns what it starts from; later changes arrive through `deliver`.
    func subscribe(_ subscriber: any Subscriber) -> Update {
        state.withLock { state in
            state.subscribers[ObjectIdentifier(subscriber)] = subscriber
            if let current = state.published[subscriber.interest] { return current }
            let value = Self.value(
                for: subscriber.interest, tracker: state.tracker, interfaces: state.tracker.interfaces)
            state.generation += 1
            let update = Update(generation: state.generation, value: value, streamedReply: encode(value))
            state.published[subscriber.interest] = update
            return update
        }
    }

    /// Removes a subscriber; harmless if it was never registered.
    func unsubscribe(_ subscriber: any Subscriber) {
        state.withLock { state in
            state.subscribers[ObjectIdentifier(subscriber)] = nil
            if !state.subscribers.values.contains(where: { $0.interest == subscriber.interest }) {
                state.published[subscriber.interest] = nil
            }
        }
    }

    /// The number of live subscribers.
    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Runs `change` on the tracker under the lock, then re-derives every watched interest and hands the ones
    /// that changed to their subscribers outside the lock. Generations keep a subscriber from going back to an
    /// older value when two callers publish at once.
    private func update(
        _ prepare: (inout State) -> [CheckedContinuation<Void, Never>],
        change: (inout PathTracker) -> Path?,
        cause: () -> PathChangeCause
    ) -> [CheckedContinuation<Void, Never>] {
        var recorded: HistoryDelivery?
        let (systemChange, deliveries, waiters) = state.withLock {
            state -> (Path?, [(any Subscriber, Update)], [CheckedContinuation<Void, Never>]) in
            let waiters = prepare(&state)
            let before = state.tracker.path
            let systemChange = change(&state.tracker)
            // Under the lock, so the history's order is the order of the changes.
            if let systemChange {
                let named = cause().named(from: state.tracker.interfaces, before: before)
                recorded = history.record(before: before, after: systemChange, cause: named)
                DaemonCounters.bump(counters.pathChanges)
            }
            let interfaces = state.tracker.interfaces
            var changed: [Interest: Update] = [:]
            for interest in Set(state.subscribers.values.map(\.interest)) {
                let value = Self.value(for: interest, tracker: state.tracker, interfaces: interfaces)
                guard state.published[interest]?.value != value else { continue }
                state.generation += 1
                let update = Update(generation: state.generation, value: value, streamedReply: encode(value))
                state.published[interest] = update
                changed[interest] = update
                if case .flow(let status) = value, status.betterPathAvailable {
                    DaemonCounters.bump(counters.betterPathEvents)
                }
            }
            let deliveries = state.subscribers.values.compactMap { subscriber in
                changed[subscriber.interest].map { (subscriber, $0) }
            }
            return (systemChange, deliveries, waiters)
        }
        // Subscribers first: the log line is for people, the update is what they wait for.
        for (subscriber, update) in deliveries { subscriber.deliver(update) }
        recorded?.deliver()
        if let systemChange, let entry = recorded?.entry {
            logger.info(
                "path changed", metadata: ["path": "\(systemChange.logSummary)", "cause": "\(entry.cause)"])
        }
        return waiters
    }

    private static func value(
        for interest: Interest, tracker: PathTracker, interfaces: [InterfaceStatus]
    ) -> Published {
        let evaluator = tracker.evaluator
        let resolvers = tracker.context.resolvers
        switch interest {
        case .path(let parameters):
            return .path(evaluator.path(from: interfaces, resolvers: resolvers, parameters: parameters))
        case .flow(let flow):
            let path = evaluator.path(from: interfaces, resolvers: resolvers, parameters: flow.parameters)
            return .flow(FlowEvaluator.status(of: flow, interfaces: interfaces, pathForParameters: path))
        }
    }

    private func encode(_ value: Published) -> [UInt8] {
        switch value {
        case .path(let path):
            return codec.encodeReply(Methods.PathReply(path: WirePath(path)), continues: true)
        case .flow(let status):
            return codec.encodeReply(Methods.FlowReply(status: WireFlowStatus(status)), continues: true)
        }
    }

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

extension Published {
    /// The path, for a path interest.
    var path: Path? {
        if case .path(let path) = self { return path }
        return nil
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
