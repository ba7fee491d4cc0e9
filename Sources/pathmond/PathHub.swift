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
    /// Told the route queries of the watched flows whenever that set changes (the kernel watcher asks them).
    private let flowQueriesChanged: @Sendable (Set<RouteQuery>) -> Void

    init(
        evaluator: PathEvaluator, context: NetworkContext = NetworkContext(), logger: Logger,
        flowQueriesChanged: @escaping @Sendable (Set<RouteQuery>) -> Void = { _ in }
    ) {
        state = Mutex(State(tracker: PathTracker(evaluator: evaluator, context: context)))
        self.logger = logger
        self.flowQueriesChanged = flowQueriesChanged
    }

    /// The route queries of every watched flow.
    private static func flowQueries(_ subscribers: some Sequence<any Subscriber>) -> Set<RouteQuery> {
        var queries: Set<RouteQuery> = []
        for subscriber in subscribers {
            if case .flow(let flow) = subscriber.interest { queries.formUnion(flow.routeQueries) }
        }
        return queries
    }

    /// Applies kernel events and publishes what changed. The first snapshot makes the hub ready.
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

    /// Changes how interfaces are classified (a reloaded configuration), and publishes what changed.
    func setEvaluator(_ evaluator: PathEvaluator) {
        _ = update { _ in
            []
        } change: { tracker in
            tracker.setEvaluator(evaluator)
        }
    }

    /// Changes identities, detection, resolvers or policy, and publishes what changed.
    func updateContext(_ change: (inout NetworkContext) -> Void) {
        _ = update { _ in
            []
        } change: { tracker in
            tracker.updateContext(change)
        }
    }

    /// The system path.
    var systemPath: Path { state.withLock { $0.tracker.path } }

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
            // Under the lock, so that the watcher hears the sets in order; the call only queues the work.
            if case .flow = subscriber.interest { flowQueriesChanged(Self.flowQueries(state.subscribers.values)) }
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
            if case .flow = subscriber.interest { flowQueriesChanged(Self.flowQueries(state.subscribers.values)) }
        }
    }

    /// The number of live subscribers.
    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Runs `change` on the tracker under the lock, then re-derives every watched interest and hands the ones
    /// that changed to their subscribers outside the lock. Generations keep a subscriber from going back to an
    /// older value when two callers publish at once.
    private func update(
        _ prepare: (inout State) -> [CheckedContinuation<Void, Never>],
        change: (inout PathTracker) -> Path?
    ) -> [CheckedContinuation<Void, Never>] {
        let (systemChange, deliveries, waiters) = state.withLock {
            state -> (Path?, [(any Subscriber, Update)], [CheckedContinuation<Void, Never>]) in
            let waiters = prepare(&state)
            let systemChange = change(&state.tracker)
            let interfaces = state.tracker.interfaces
            var changed: [Interest: Update] = [:]
            for interest in Set(state.subscribers.values.map(\.interest)) {
                let value = Self.value(for: interest, tracker: state.tracker, interfaces: interfaces)
                guard state.published[interest]?.value != value else { continue }
                state.generation += 1
                let update = Update(generation: state.generation, value: value, streamedReply: encode(value))
                state.published[interest] = update
                changed[interest] = update
            }
            let deliveries = state.subscribers.values.compactMap { subscriber in
                changed[subscriber.interest].map { (subscriber, $0) }
            }
            return (systemChange, deliveries, waiters)
        }
        // Subscribers first: the log line is for people, the update is what they wait for.
        for (subscriber, update) in deliveries { subscriber.deliver(update) }
        if let systemChange { logger.info("path changed", metadata: ["path": "\(systemChange.logSummary)"]) }
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
            return .flow(
                FlowEvaluator.status(
                    of: flow, interfaces: interfaces, pathForParameters: path, decisions: tracker.state.decisions))
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
