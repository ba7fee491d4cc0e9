// SPDX-License-Identifier: Apache-2.0
import Locking
import Logging
import PathModel

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's single source of truth: the path tracker (kernel state, identities, policy) and the subscribers.
/// Every change goes through `update`: apply it to the tracker under the lock, then, outside the lock, derive what
/// each distinct interest now sees, diff it against what was published, encode the changed ones once, and hand them
/// to their subscribers in one batch. GetPath and new subscribers take the lock only for a moment, however many
/// interests an update re-derives.
final class PathHub: Sendable {
    private let state: Locked<State>
    /// Held for a whole update, so that two callers cannot interleave their derive-and-publish halves (the daemon
    /// makes every change from its main loop, so it is never contended there).
    private let updating = Lock()
    /// The path changes' log.
    private let log: RecordLogger
    /// Where a batch of updates goes: one call per change, for every subscriber that must hear of it.
    private let fanOut: @Sendable ([Delivery]) -> Void
    /// Told the route queries of the watched flows whenever that set changes, with the set's version (the kernel
    /// watcher asks them, and its batches say which version they asked: `apply(queriesVersion:)`).
    private let flowQueriesChanged: @Sendable (FlowQueryChange, UInt64) -> Void
    /// Every change of the system path, with its cause (recorded in `update`).
    let history: HistoryLog
    /// What the metrics file counts; the hub counts path changes and better-path events.
    let counters: DaemonCounters
    /// Told after every update, so the files that show the hub's state (history, metrics) are brought up to date.
    private let afterUpdate: @Sendable () -> Void

    init(
        evaluator: PathEvaluator, context: NetworkContext = NetworkContext(), logger: Logger,
        fanOut: @escaping @Sendable ([Delivery]) -> Void = { deliveries in
            for delivery in deliveries {
                for subscriber in delivery.subscribers.values { subscriber.deliver(delivery.update) }
            }
        },
        flowQueriesChanged: @escaping @Sendable (FlowQueryChange, UInt64) -> Void = { _, _ in },
        history: HistoryLog = HistoryLog(), counters: DaemonCounters = DaemonCounters(),
        afterUpdate: @escaping @Sendable () -> Void = {}
    ) {
        state = Locked(State(tracker: PathTracker(evaluator: evaluator, context: context)))
        log = RecordLogger(logger)
        self.fanOut = fanOut
        self.flowQueriesChanged = flowQueriesChanged
        self.history = history
        self.counters = counters
        self.afterUpdate = afterUpdate
    }

    /// The route queries an interest adds to the system's: a flow's own, and the internet's probes as its user
    /// (other than root), for that user's routing (`FlowQueryCounts` adds those once per user).
    private static func routeQueries(of interest: Interest) -> [RouteQuery] {
        if case .flow(let flow) = interest { flow.routeQueries } else { [] }
    }

    /// Whether an interest adds route queries of its own: a flow, or a path of another user than root.
    private static func asksTheKernel(_ interest: Interest) -> Bool {
        switch interest {
        case .flow: true
        case .path(let parameters): parameters.routingUser.map { $0 != RouteQuery.systemUser } ?? false
        }
    }

    /// Hands what `interest`, coming (`adding`) or going, changes in the route queries to the kernel watcher, as a
    /// new version of the set (even when nothing changed: a new interest waits for the version to be asked). Called
    /// under the lock, so that the watcher hears the changes in order; the call only queues the work.
    private func handOverQueries(of interest: Interest, adding: Bool, _ state: inout State) {
        let change = state.queryCounts.count(
            Self.routeQueries(of: interest), user: interest.routingUser, adding: adding)
        state.queriesHandedOver += 1
        flowQueriesChanged(change, state.queriesHandedOver)
    }

    /// Applies kernel events and publishes what changed; `cause` nil: the cause is read from the events. The
    /// first snapshot makes the hub ready. `awaiting`: the flows' route queries whose new answers come in a later
    /// batch (the flows that ask them are published once they have). `queriesVersion`: the version of the query set
    /// (`flowQueriesChanged`) the kernel watcher has asked by these events. `answered`: the route queries they
    /// asked (nil: unknown).
    func apply(
        _ events: [KernelEvent], cause: PathChangeCause? = nil, awaiting: AwaitingQueries = [],
        queriesVersion: UInt64 = 0, answered: [RouteQuery]? = nil
    ) {
        let isSnapshot = events.contains { if case .snapshot = $0 { true } else { false } }
        update(cause: cause ?? .kernel(events)) { tracker in
            tracker.apply(events)
        } prepare: { state in
            if isSnapshot { state.isReady = true }
            state.changedAnswers = isSnapshot ? nil : ChangedAnswers(events)
            state.awaiting = awaiting
            state.queriesAsked = max(state.queriesAsked, queriesVersion)
            state.answered = answered
        }
    }

    /// Changes how interfaces are classified (a reloaded configuration), and publishes what changed.
    func setEvaluator(_ evaluator: PathEvaluator, cause: PathChangeCause = .configurationReload) {
        update(cause: cause) { tracker in tracker.setEvaluator(evaluator) }
    }

    /// Changes identities, detection, resolvers or policy, and publishes what changed.
    func updateContext(cause: PathChangeCause = .unspecified, _ change: (inout NetworkContext) -> Void) {
        update(cause: cause) { tracker in tracker.updateContext(change) }
    }

    /// Whether the first kernel snapshot has been applied (before it, the path says nothing about the machine).
    var isReady: Bool { state.withLock { $0.isReady } }

    /// The system path.
    var systemPath: Path { state.withLock { $0.tracker.path } }

    /// The path for a client's parameters, now. Evaluated outside the lock, on a copy of the interfaces.
    func path(for parameters: PathParameters) -> Path {
        let tracker = state.withLock { $0.tracker }
        return Self.value(for: .path(parameters), tracker: tracker).path!
    }

    /// The path for a client's parameters, if it is known now: nil while the kernel has not been asked about the
    /// parameters' routing user (`whenKnown` waits for that).
    func pathIfKnown(for parameters: PathParameters) -> Path? {
        let (tracker, isReady) = state.withLock { ($0.tracker, $0.isReady) }
        guard !isReady || tracker.knowsRouting(ofUser: parameters.routingUser) else { return nil }
        return Self.value(for: .path(parameters), tracker: tracker).path!
    }

    /// Calls `handler` with the interest's value once it is known: at once, or, for a user whose routing the
    /// kernel has not been asked about, when the kernel watcher has asked (from the loop that applies its
    /// batches). The interest is watched meanwhile, so that its queries are asked.
    func whenKnown(_ interest: Interest, _ handler: @escaping @Sendable (Published) -> Void) {
        let waiter = FirstValueWaiter(interest: interest)
        waiter.arm { [self] value in
            unsubscribe(waiter)
            handler(value)
        }
        if let now = subscribe(waiter) { waiter.deliver(now) }
    }

    /// The identities, detection, resolvers and policy in force.
    var context: NetworkContext { state.withLock { $0.tracker.context } }

    /// The links' qualities in the context: read alone, without a copy of the whole context (every carrier flip
    /// reads them).
    var linkQualities: [Int32: LinkQuality] { state.withLock { $0.tracker.context.linkQualities } }

    /// Every interface's status.
    var interfaces: [InterfaceStatus] { state.withLock { $0.tracker.interfaces } }

    /// The statuses of the interfaces with these indexes (those present), in index order.
    func interfaces(withIndexes indexes: InterfaceIndexes) -> [InterfaceStatus] {
        state.withLock { $0.tracker.interfaces(withIndexes: indexes) }
    }

    /// The name and network key of each interface of `indexes` that is present, in no order: what the usage meter
    /// reads at every network change (a wired network's route flip), without the copy of each whole status that
    /// `interfaces(withIndexes:)` makes.
    func networks(ofInterfaces indexes: InterfaceIndexes) -> [(index: Int32, name: String, key: NetworkKey?)] {
        state.withLock { state in
            let all = state.tracker.interfaces
            return indexes.compactMap { index in
                // The statuses are in index order.
                var low = 0
                var high = all.count
                while low < high {
                    let middle = (low + high) / 2
                    if all[middle].link.index < index { low = middle + 1 } else { high = middle }
                }
                guard low < all.count, all[low].link.index == index else { return nil }
                return (index, all[low].link.name, all[low].identity?.key)
            }
        }
    }

    /// The tracker's `factsVersion`: equal, the same links, addresses, classifier and context as before.
    var factsVersion: UInt64 { state.withLock { $0.tracker.factsVersion } }

    /// The tracker's `identitiesVersion` and `factsVersion`: both equal, every interface on the same network and no
    /// link or address changed.
    var networksVersion: (identities: UInt64, facts: UInt64) {
        state.withLock { ($0.tracker.identitiesVersion, $0.tracker.factsVersion) }
    }

    /// The links whose state alone changed since the last call (`PathTracker.takeLinkStateChanges`).
    func takeLinkStateChanges() -> InterfaceIndexes { state.withLock { $0.tracker.takeLinkStateChanges() } }

    /// The tracker's `takeIdentityChanges()`: the interfaces whose network changed since the last call, nil for any.
    func takeIdentityChanges() -> InterfaceIndexes? { state.withLock { $0.tracker.takeIdentityChanges() } }

    /// The index of a flow's interface: the flow's own when an interface has it, else that of the interface with
    /// the flow's name now. An interface the hub has not heard of yet (a tun device made just before the client
    /// watches, its RTM_NEWLINK still on the way) keeps the client's index, else the kernel's for the name: the
    /// flow follows it once it appears instead of staying unroutable.
    func interfaceIndex(of flow: Flow) -> Int32? {
        let interfaces = interfaces
        if let index = flow.interfaceIndex, interfaces.contains(where: { $0.link.index == index }) { return index }
        if let known = interfaces.first(where: { $0.link.name == flow.interfaceName }) { return known.link.index }
        if let index = flow.interfaceIndex { return index }
        let kernel = Int32(bitPattern: if_nametoindex(flow.interfaceName))
        return kernel > 0 ? kernel : nil
    }

    /// Registers a subscriber and returns what it starts from; later changes arrive through the fan-out. Nil: the
    /// first value comes through the fan-out too, once the kernel has been asked about the interest's routing
    /// user (a value derived now would be the system's, and wrong under a `uidrange` rule).
    func subscribe(_ subscriber: any Subscriber) -> Update? {
        let interest = subscriber.interest
        var (watched, existing, tracker, version, waits) = state.withLock { state in
            let watched: WatchedInterest
            if let known = state.interests[interest] {
                watched = known
            } else {
                watched = WatchedInterest(interest)
                state.add(watched)
                if Self.asksTheKernel(interest) {
                    handOverQueries(of: interest, adding: true, &state)
                    if state.isReady && !state.tracker.knowsRouting(ofUser: interest.routingUser) {
                        watched.firstValueAfter = state.queriesHandedOver
                    }
                }
            }
            watched.subscribers[ObjectIdentifier(subscriber)] = subscriber
            state.subscriberCount += 1
            let waits = watched.published == nil && watched.firstValueAfter != nil
            return (watched, watched.published, state.tracker, state.trackerVersion, waits)
        }
        if waits { return nil }
        while existing == nil {
            // A new interest, derived outside the lock. An update that ran meanwhile did not know the interest, so
            // a value from before it would never be corrected: derive again from the newer tracker.
            let value = Self.value(for: interest, tracker: tracker)
            let bytes = EncodedReplies.reply(value)
            (existing, tracker, version) = state.withLock { state in
                if let published = watched.published { return (published, state.tracker, version) }
                guard state.trackerVersion == version else { return (nil, state.tracker, state.trackerVersion) }
                state.generation += 1
                let update = Update(generation: state.generation, value: value, streamedReply: bytes)
                watched.published = update
                return (update, state.tracker, version)
            }
        }
        return existing
    }

    /// Removes a subscriber; harmless if it was never registered.
    func unsubscribe(_ subscriber: any Subscriber) {
        let interest = subscriber.interest
        state.withLock { state in
            guard let watched = state.interests[interest],
                watched.subscribers.removeValue(forKey: ObjectIdentifier(subscriber)) != nil
            else { return }
            state.subscriberCount -= 1
            if watched.subscribers.isEmpty {
                state.remove(watched)
                if Self.asksTheKernel(interest) { handOverQueries(of: interest, adding: false, &state) }
            }
        }
    }

    /// The number of live subscribers.
    var subscriberCount: Int { state.withLock { $0.subscriberCount } }

    /// The number of distinct interests subscribers watch.
    var interestCount: Int { state.withLock { $0.interests.count } }

    /// Runs `change` on the tracker under the lock, re-derives every watched interest outside it, then publishes
    /// the changed ones under the lock again and hands them to the fan-out outside it. Generations keep a
    /// subscriber from going back to an older value.
    private func update(
        cause: @autoclosure () -> PathChangeCause, _ change: (inout PathTracker) -> Path?,
        prepare: (inout State) -> Void = { _ in }
    ) {
        updating.withLock {
            let (before, systemChange, kept, tracker, watched, awaiting, asked) = state.withLock { state in
                state.answered = nil
                prepare(&state)
                let inputsBefore = KeptInputs.Inputs(state.tracker)
                let before = state.tracker.path
                let systemChange = change(&state.tracker)
                state.trackerVersion += 1
                // The boxes to look at, with what each last published: read here, compared outside the lock. A
                // slice of flows' answers looks at those flows only: its cost is its own, not all flows'.
                let kept = KeptInputs(before: inputsBefore, after: state.tracker, changedAnswers: state.changedAnswers)
                // Let go of the batch's answers once read: held here until the next update, they kept the route
                // follower from emptying its tables in place, and each change made it new ones.
                state.changedAnswers = ChangedAnswers()
                let watched = state.interestsToDerive(inputsKept: kept.interfacesAndResolvers)
                return (before, systemChange, kept, state.tracker, watched, state.awaiting, state.queriesAsked)
            }
            var changed: [(WatchedInterest, Published, [UInt8])] = []
            var paths = PathsByParameters(tracker)
            var replies = EncodedReplies()
            // Derived last to first: the deliveries take them from the end of `changed`, in the order watched.
            for (box, published, firstValueAfter) in watched.reversed() {
                guard let published else {
                    // Waiting for its user's routing: derived once the kernel watcher has asked the query set that
                    // brought it (whatever the kernel answered). Otherwise still being derived by its first
                    // subscriber, from a tracker this update will outdate: that one derives again.
                    if let firstValueAfter, firstValueAfter <= asked {
                        let value = Self.value(
                            for: box.interest, queries: box.routeQueryPair, tracker: tracker, paths: &paths)
                        changed.append((box, value, replies.encode(value)))
                    }
                    continue
                }
                // A flow whose new answers come in a later slice keeps its value until they do (derived now, it
                // would say what its old answers and the new interfaces make of it, and be sent twice); it is
                // derived in the update that brings them, whatever they are.
                if box.awaitsAnswers(awaiting) {
                    box.isAwaitingAnswers = true
                    continue
                }
                if !box.isAwaitingAnswers, kept.settle(box) { continue }
                box.isAwaitingAnswers = false
                let value = Self.value(
                    for: box.interest, queries: box.routeQueryPair, tracker: tracker, paths: &paths)
                guard published.value != value else { continue }
                changed.append((box, value, replies.encode(value)))
            }
            let deliveries =
                changed.isEmpty
                ? []
                : state.withLock { state -> [Delivery] in
                    var deliveries: [Delivery] = []
                    deliveries.reserveCapacity(changed.count)
                    // Each value moved into its update, not copied: iterated, a thousand flows' statuses and bytes
                    // were each copied and released (600 instructions a flow). Taken from the end, where the first
                    // watched was derived last.
                    while let (watched, value, bytes) = changed.popLast() {
                        // Unsubscribed meanwhile: nobody to tell.
                        guard !watched.subscribers.isEmpty else { continue }
                        if case .flow(let status) = value, status.betterPathAvailable {
                            DaemonCounters.bump(counters.betterPathEvents)
                        }
                        state.generation += 1
                        let update = Update(generation: state.generation, value: value, streamedReply: bytes)
                        watched.published = update
                        watched.firstValueAfter = nil
                        // The subscribers as they are now, walked by the fan-out as it writes.
                        deliveries.append(
                            Delivery(
                                interest: ObjectIdentifier(watched), subscribers: watched.subscribers, update: update))
                    }
                    return deliveries
                }
            // Subscribers first: the history, its followers and the log line come after the update they wait for.
            // Still under `updating`, so the history's order is the order of the changes.
            if !deliveries.isEmpty { fanOut(deliveries) }
            if let systemChange {
                // The interfaces read again rather than the tracker kept: a copy of the tracker kept over the
                // fan-out would make a change to the hub's meanwhile copy every status.
                let interfaces = state.withLock { $0.tracker.interfaces }
                let named = cause().named(from: interfaces, before: before)
                // Not an optional kept past the block: an optional delivery was destroyed through the generic
                // value witnesses (650 instructions a change).
                let recorded = history.record(before: before, after: systemChange, cause: named)
                DaemonCounters.bump(counters.pathChanges)
                recorded.deliver()
                log.log(.pathChanged(systemChange, cause: recorded.entry.cause))
            }
        }
        afterUpdate()
    }
}
