// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import PathModel
import SDEvent
import Synchronization

/// Watches the kernel's links, addresses, nexthop objects, default routes, neighbours and rules through rtnetlink
/// (and WireGuard's peers through generic netlink) and delivers them as batches of `KernelEvent`s: first a full dump,
/// then one batch per drained read of notifications, and a new full dump whenever notifications were lost. Driven by
/// events only: no polling, no periodic timer.
///
/// Sendable: everything that changes is `state`, loop-bound (checked) to `loop`'s thread (the daemon's main loop, or a
/// loop of its own), and so is every libnl call; the sockets are created before any of that (possibly on a thread
/// inside another network namespace) and handed over. Notifications are read the moment the loop's epoll says so, on
/// that thread: no thread hop between the kernel and whatever the handler does.
public final class KernelWatcher: Sendable {
    /// The most notifications read in one wake-up before the batch is delivered anyway: a storm still yields
    /// batches, and `stop()` gets its turn on the loop.
    static let maximumReceivesPerWakeup = 1024
    /// A bound on emptying the queue before a resync, so that an endless storm cannot hold the watcher forever.
    static let maximumDiscardsBeforeResync = 1 << 20

    private let loop: SDEventLoop
    private let calls: NetlinkCalls
    private let namespacePath: String?
    /// Subscribed to the groups before any dump, so nothing falls between a dump and the notifications after it.
    private let notifications: NetlinkSocket
    /// Told once, on the loop, when the kernel refuses to resolve gateways (the errno).
    private let resolutionRefused: @Sendable (Int32) -> Void
    private let streamHandedOut = Atomic<Bool>(false)
    /// What changes as the watcher runs; touched on the loop's thread only (or before it runs).
    private let state: LoopBound<State>

    static let firstRetryDelayMilliseconds = 50
    private static let longestRetryDelayMilliseconds = 5_000

    /// Opens the sockets and subscribes to link, address, route, neighbour, rule and nexthop notifications (IPv4 and
    /// IPv6).
    ///
    /// - Parameters:
    ///   - receiveBufferSize: The notification socket's receive buffer, set with SO_RCVBUFFORCE (past rmem_max,
    ///     with CAP_NET_ADMIN), else with SO_RCVBUF. The default rides out storms of routes without loss.
    ///   - namespacePath: A network namespace to watch instead of the caller's, such as "/var/run/netns/NAME".
    ///   - loop: The loop that reads notifications and runs the handler; nil: a loop on a thread of its own.
    ///   - deviceFacts: Called on the watcher's loop when a link is first seen or renamed, to fill in
    ///     `Link.device` from sysfs; the answer is cached per (index, name).
    ///   - resolutionRefused: Called once, on the watcher's loop, if the kernel refuses to resolve a gateway's
    ///     link-layer address (EPERM without CAP_NET_ADMIN): wired networks are then identified only when other
    ///     traffic makes the kernel learn their gateway.
    public convenience init(
        receiveBufferSize: Int = 32 << 20, namespacePath: String? = nil, loop: SDEventLoop? = nil,
        deviceFacts: @escaping @Sendable (_ index: Int32, _ name: String) -> DeviceFacts = { _, _ in .unknown },
        resolutionRefused: @escaping @Sendable (_ errno: Int32) -> Void = { _ in }
    ) throws(NetlinkError) {
        try self.init(
            receiveBufferSize: receiveBufferSize, namespacePath: namespacePath, loop: loop, deviceFacts: deviceFacts,
            resolutionRefused: resolutionRefused, calls: .live)
    }

    /// The seam for tests: `calls` replaces the libnl receive and dump calls.
    init(
        receiveBufferSize: Int, namespacePath: String?, loop: SDEventLoop? = nil,
        deviceFacts: @escaping @Sendable (_ index: Int32, _ name: String) -> DeviceFacts,
        resolutionRefused: @escaping @Sendable (Int32) -> Void = { _ in }, calls: NetlinkCalls
    ) throws(NetlinkError) {
        self.resolutionRefused = resolutionRefused
        if let loop {
            self.loop = loop
            ownsLoop = false
        } else {
            do throws(SDEventError) {
                self.loop = try SDEventLoop.startedOnNewThread(name: "pathmond-netlink")
                ownsLoop = true
            } catch {
                throw .system(errno: error.errno)
            }
        }
        let sockets = try NetworkNamespace.run(in: namespacePath) { () throws(NetlinkError) in
            let notifications = try NetlinkSocket(role: .notifications(receiveBufferSize: receiveBufferSize))
            return (
                notifications, try NetlinkSocket(role: .requests), try? RouteLookupSocket(),
                try? WireGuardPeerSource()
            )
        }
        self.notifications = sockets.0
        self.namespacePath = namespacePath
        self.calls = calls
        self.state = LoopBound(
            State(
                requests: sockets.1, deviceFacts: DeviceFactsCache(lookup: deviceFacts),
                tunnelPeers: TunnelPeerCache(source: sockets.3), routing: RouteFollower(lookup: sockets.2)),
            on: self.loop)
    }

    /// Whether the loop is this watcher's own, to end when it stops.
    private let ownsLoop: Bool

    deinit {
        let state = self.state.valueInOwnersDeinit
        state.delivery?.finish()
        // The sources go on the loop's thread, before the sockets they watch are closed.
        loop.dispose(
            [state.source, state.retry, state.resolveRetry?.source, state.expiryTimer?.source, state.sliceSource],
            keepingUntilThen: notifications)
        if ownsLoop { loop.exit() }
    }

    /// One checked access to the state for a whole step, rather than one per field. `body` must not call out of
    /// the watcher (a handler could come back in and touch the state again).
    private func withState<Result>(_ body: (inout State) -> Result) -> Result {
        body(&state.value)
    }

    /// The batches, handed to `handler` on the watcher's loop as soon as each is read: one `.snapshot` with resync
    /// `.initial`, then one batch per drained read of notifications, and a `.snapshot` batch with resync `.overflow`
    /// (or `.dumpInterrupted`) whenever notifications were lost. The handler runs one batch at a time, in order, and
    /// its work per batch must be short and never block. There is one consumer: calling this twice is a
    /// programmer error.
    public func start(handler: @escaping @Sendable (KernelBatch) -> Void) {
        start(handler: handler, finish: {})
    }

    /// `start(handler:)`, and `finish` once the watcher stops: for NetlinkTestSupport's `batches()`.
    package func start(
        handler: @escaping @Sendable (KernelBatch) -> Void, finish: @escaping @Sendable () -> Void
    ) {
        let (first, _) = streamHandedOut.compareExchange(expected: false, desired: true, ordering: .relaxed)
        precondition(first, "KernelWatcher has one consumer: start(handler:) or batches(), once")
        loop.execute { self.start((deliver: handler, finish: finish)) }
    }

    /// For tests: stops reading notifications until `resumeReading()`, so that a storm overflows the socket for
    /// certain, however fast this machine reads. Call only after the first batch has arrived.
    func suspendReading() {
        loop.sync { self.state.value.source?.setEnabled(false) }
    }

    /// For tests: reads notifications again after `suspendReading()`.
    func resumeReading() {
        loop.sync { self.state.value.source?.setEnabled(true) }
    }

    /// Changes the route queries of the flows clients watch (`RouteQuery(destination:source:)` per flow): asked
    /// after every change like the standing ones, and the added ones at once (the answers arrive as a batch, which
    /// carries `version` as `queriesVersion`, so that the caller knows when its change has been asked). Changes are
    /// applied in the order they were made.
    public func changeFlowQueries(_ change: FlowQueryChange, version: UInt64 = 0) {
        loop.execute {
            guard !self.state.value.isStopped else { return }
            self.state.value.queriesVersion = version
            let first = self.state.value.routing.changeFlowQueries(change)
            // Delivered even when nothing changed yet: the flows left for later slices are asked from there.
            self.deliver(KernelBatch(events: first.map { [$0] } ?? []))
        }
    }

    /// Stops watching and finishes the stream. Safe to call more than once and from any thread; the work happens
    /// on the watcher's loop, after whatever it is doing now.
    public func stop() {
        loop.execute { self.shutdown() }
    }

    private func start(_ delivery: (deliver: (KernelBatch) -> Void, finish: () -> Void)) {
        guard !state.value.isStopped else {
            delivery.finish()
            return
        }
        state.value.delivery = delivery
        resync(.initial)
    }

    private func shutdown() {
        let delivery = withState { state in
            state.isStopped = true
            state.source?.cancel()
            state.source = nil
            state.retry = nil
            state.resolveRetry = nil
            state.expiryTimer = nil
            state.sliceSource = nil
            defer { state.delivery = nil }
            return state.delivery
        }
        delivery?.finish()
    }

    /// Starts reading notifications; called once, after the first dump was delivered.
    private func startReading() {
        // Called inside `drain`, on the loop, the follower's one thread; the follower itself, not the state it sits
        // in, which reading would copy (860 instructions a message). It holds neither the socket nor the sink.
        let routing = state.value.routing
        notifications.sink.readsNeighbour = { message in routing.reads(message) }
        let source = try? loop.watchReadable(notifications.fileDescriptor) { [weak self] in self?.drain() }
        state.value.source = source
    }

    /// Reads notifications until the socket is drained (or for at most `maximumReceivesPerWakeup` reads) and
    /// delivers them as one batch. Lost notifications turn into a resync; nothing here is fatal.
    private func drain() {
        var events: [KernelEvent] = []
        for _ in 0..<Self.maximumReceivesPerWakeup {
            let result = calls.receiveNotifications(notifications)
            let received = notifications.sink.take()
            if result > 0 {
                // Most often the first read holds the whole batch: taken as it is, not copied.
                if events.isEmpty { events = received } else { events.appendMergingRules(received) }
                continue
            }
            if result == 0 || result == -NLE_AGAIN { break }
            // ENOBUFS (-NLE_NOMEM), a truncated datagram, anything unreadable: some notifications are gone. Only
            // a dump is the truth now, and it supersedes what this read collected so far.
            events = []
            discardQueuedNotifications()
            resync(.overflow)
            if state.value.isStopped { return }
        }
        // One access for the whole batch: the caches and the follower ask sysfs and the kernel, never the watcher.
        // The batch is changed in place, held by nothing else, and the follower appends its answers to it.
        let routesExpire = withState { state in
            state.deviceFacts.enrich(&events)
            state.tunnelPeers.enrich(&events)
            let routingChange = notifications.sink.takeRoutingChange()
            if state.tunnelPeers.mayMove(routingChange) {
                // WireGuard announces no endpoint change: ask again whenever routing to its peers may have moved.
                let asked = events.compactMap { event -> Int32? in
                    if case .linkChanged(let link) = event { return link.index }
                    return nil
                }
                events += state.tunnelPeers.refresh(except: Set(asked))
            }
            state.routing.follow(appendingTo: &events, routingChange: routingChange)
            return !routingChange.expiries.isEmpty
        }
        deliver(KernelBatch(events: events))
        followResolution()
        if routesExpire { followExpiry() }
    }

    /// After the follower asked the kernel to resolve gateways: says once if the kernel refused, and keeps a
    /// one-shot timer for the next gateway to ask again (none while every gateway is known).
    private func followResolution() {
        // One access to the state: each read of `state.value` copies it (this runs after every read of
        // notifications, most often to find nothing to do).
        let (refusal, rearm, due) = withState { state in
            let due = state.routing.nextResolveRetry
            let rearm = due != state.resolveRetry?.due
            if rearm { state.resolveRetry = nil }
            return (state.routing.takeRefusal(), rearm, due)
        }
        if let refusal { resolutionRefused(refusal) }
        guard rearm, let due else { return }
        let delay = max(due - .now, .zero)
        if let source = try? loop.schedule(after: delay, { [weak self] in self?.resolveAgain() }) {
            state.value.resolveRetry = (source, due)
        }
    }

    /// Keeps a one-shot timer at the next instant a route expires (none while no route does): the kernel stops
    /// using it then without a message. Not a poll: an instant known in advance.
    private func followExpiry() {
        let due = state.value.routing.nextExpiry
        guard due != state.value.expiryTimer?.due else { return }
        state.value.expiryTimer = nil
        guard let due else { return }
        let delay = max(due - .now, .zero)
        if let source = try? loop.schedule(after: delay, { [weak self] in self?.expireRoutes() }) {
            state.value.expiryTimer = (source, due)
        }
    }

    private func expireRoutes() {
        state.value.expiryTimer = nil
        guard !state.value.isStopped else { return }
        if let decided = state.value.routing.expire() { deliver(KernelBatch(events: [decided])) }
        followExpiry()
    }

    private func resolveAgain() {
        state.value.resolveRetry = nil
        guard !state.value.isStopped else { return }
        deliver(KernelBatch(events: state.value.routing.retryResolving()))
        followResolution()
    }

    /// Empties the receive queue before a resync dump. The kernel reports ENOBUFS once per episode of congestion
    /// and drops silently until the queue has been emptied; a dump taken while still congested could miss changes
    /// whose notifications were dropped without a word. Emptied first, any loss during or after the dump raises
    /// ENOBUFS again. What the queue held is older than the dump, so nothing is lost by discarding it.
    private func discardQueuedNotifications() {
        for _ in 0..<Self.maximumDiscardsBeforeResync {
            let result = calls.receiveNotifications(notifications)
            _ = notifications.sink.take()
            if result == 0 || result == -NLE_AGAIN { return }
        }
    }

    /// Dumps everything and delivers it as one snapshot batch; on failure, tries again later with a growing delay.
    private func resync(_ reason: ResyncReason) {
        guard !state.value.isStopped else { return }
        let requests = state.value.requests
        _ = requests.sink.takeRoutingChange()
        switch KernelDump.read(from: requests, calls: calls) {
        case .success(let outcome):
            // The dump's IPv6 routes that expire, read as they passed through (the rest of that change is moot).
            let expiries = requests.sink.takeRoutingChange().expiries
            let snapshot = withState { state in
                state.pendingResync = nil
                state.retryDelayMilliseconds = Self.firstRetryDelayMilliseconds
                var snapshot = outcome.snapshot
                let links = snapshot.links.map { state.deviceFacts.enrich($0) }
                snapshot.links = state.tunnelPeers.restart(links)
                state.deviceFacts.retain(only: Set(snapshot.links.map(\.index)))
                state.routing.restart(from: &snapshot, expiries: expiries)
                return snapshot
            }
            let reported: ResyncReason =
                reason == .initial ? .initial : outcome.wasInterrupted ? .dumpInterrupted : reason
            deliver(KernelBatch(events: [.snapshot(snapshot)], resync: reported))
            followResolution()
            followExpiry()
            if state.value.source == nil { startReading() }
        case .failure(let error):
            if error != .dumpInterrupted { replaceRequestSocket() }
            scheduleRetry(of: reason)
        }
    }

    /// A dump that failed half-way may leave replies in the socket that would confuse the next one: start afresh.
    private func replaceRequestSocket() {
        let fresh = try? NetworkNamespace.run(in: namespacePath) { () throws(NetlinkError) in
            try NetlinkSocket(role: .requests)
        }
        if let fresh { state.value.requests = fresh }
    }

    private func scheduleRetry(of reason: ResyncReason) {
        let delay = withState { state in
            // The first failed dump's reason wins: an initial dump must be reported as initial.
            if state.pendingResync == nil { state.pendingResync = reason }
            let delay = Duration.milliseconds(state.retryDelayMilliseconds)
            state.retryDelayMilliseconds = min(state.retryDelayMilliseconds * 2, Self.longestRetryDelayMilliseconds)
            return delay
        }
        // A one-shot retry after a failure, not a poll: a healthy watcher has no timer at all.
        let retry = try? loop.schedule(after: delay) { [weak self] in
            guard let self else { return }
            state.value.retry = nil
            guard let pending = state.value.pendingResync else { return }
            resync(pending)
        }
        state.value.retry = retry
    }

    /// Delivers a batch (if it says anything), then leaves the flows' queries still to ask for a later turn.
    private func deliver(_ batch: KernelBatch) {
        var batch = batch
        // A batch with no events still goes when it is the one that ends the wait (the flows that waited for a
        // later slice are settled then, whether or not their answers changed) or the first after a new query set
        // (whoever waits for that set's answers hears that they came, or that the kernel had none).
        let isNews = withState { state in
            batch.awaiting = state.routing.awaitingQueries
            batch.queriesVersion = state.queriesVersion
            let answered = state.routing.takeAnswered()
            batch.answered = batch.resync == nil ? answered : nil
            guard
                !batch.events.isEmpty || batch.awaiting != state.deliveredAwaiting
                    || batch.queriesVersion != state.deliveredQueriesVersion
            else { return false }
            state.deliveredAwaiting = batch.awaiting
            state.deliveredQueriesVersion = batch.queriesVersion
            return true
        }
        // The handler is called outside the state: it may come back in (a test suspending reading, say).
        if isNews, let delivery = state.value.delivery { delivery.deliver(batch) }
        withState { state in
            guard state.routing.hasPendingSlices, !state.isStopped else { return }
            if state.sliceSource == nil {
                state.sliceSource = try? loop.sliced { [weak self] in self?.askNextSlice() }
            }
            state.sliceSource?.armOnce()
        }
    }

    private func askNextSlice() {
        guard !state.value.isStopped else { return }
        deliver(KernelBatch(events: state.value.routing.askNextSlice().map { [$0] } ?? []))
    }
}
