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
/// @unchecked Sendable: every mutable property and every libnl call is used only on `loop`'s thread (the daemon's
/// main loop, or a loop of its own); the sockets are created before any of that (possibly on a thread inside another
/// network namespace) and handed over. Notifications are read the moment the loop's epoll says so, on that thread:
/// no thread hop between the kernel and whatever the handler does.
public final class KernelWatcher: @unchecked Sendable {
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
    /// Request/response only: dumps never mix with notifications. Replaced if a dump fails in a way that could leave
    /// unread replies behind.
    private var requests: NetlinkSocket
    private var deviceFacts: DeviceFactsCache
    /// WireGuard links' peer endpoints, from generic netlink.
    private var tunnelPeers: TunnelPeerCache
    /// Asks the kernel's own routing decisions after each batch that may have changed them.
    private let routing: RouteFollower
    private var source: SDEventSource?
    private var retry: SDEventSource?
    /// The one-shot timer for the next gateway to ask again (`RouteFollower.nextResolveRetry`), and its instant.
    private var resolveRetry: (source: SDEventSource, due: ContinuousClock.Instant)?
    /// The one-shot timer for the next route to expire (`RouteFollower.nextExpiry`), and its instant.
    private var expiryTimer: (source: SDEventSource, due: ContinuousClock.Instant)?
    /// Asks the next slice of flows' queries on a later turn of the loop, after whatever became ready meanwhile
    /// (`RouteFollower.askNextSlice()`); made on first use.
    private var sliceSource: SDEventSource?
    /// The flows' queries the last delivered batch said were waiting.
    private var deliveredAwaiting: Set<RouteQuery> = []
    /// Told once, on the loop, when the kernel refuses to resolve gateways (the errno).
    private let resolutionRefused: @Sendable (Int32) -> Void
    /// Where batches go: an AsyncStream's continuation, or a handler called on the loop.
    private var delivery: (deliver: (KernelBatch) -> Void, finish: () -> Void)?
    private var isStopped = false
    /// A resync that failed and waits for its retry; cleared by any resync that succeeds.
    private var pendingResync: ResyncReason?
    private var retryDelayMilliseconds = KernelWatcher.firstRetryDelayMilliseconds
    private let streamHandedOut = Atomic<Bool>(false)

    private static let firstRetryDelayMilliseconds = 50
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
        self.requests = sockets.1
        self.routing = RouteFollower(lookup: sockets.2)
        self.namespacePath = namespacePath
        self.deviceFacts = DeviceFactsCache(lookup: deviceFacts)
        self.tunnelPeers = TunnelPeerCache(source: sockets.3)
        self.calls = calls
    }

    /// Whether the loop is this watcher's own, to end when it stops.
    private let ownsLoop: Bool

    deinit {
        delivery?.finish()
        // The sources go on the loop's thread, before the sockets they watch are closed.
        loop.dispose([source, retry, resolveRetry?.source, expiryTimer?.source], keepingUntilThen: notifications)
        if ownsLoop { loop.exit() }
    }

    /// The batches: one `.snapshot` with resync `.initial`, then one batch per drained read of notifications, and a
    /// `.snapshot` batch with resync `.overflow` (or `.dumpInterrupted`) whenever notifications were lost.
    ///
    /// There is one consumer: calling this twice is a programmer error. Ending the iteration stops the watcher.
    public func batches() -> AsyncStream<KernelBatch> {
        let (first, _) = streamHandedOut.compareExchange(expected: false, desired: true, ordering: .relaxed)
        precondition(first, "KernelWatcher.batches() has one consumer and may be called once")
        let (stream, continuation) = AsyncStream.makeStream(of: KernelBatch.self, bufferingPolicy: .unbounded)
        continuation.onTermination = { [weak self] _ in self?.stop() }
        loop.execute { self.start((deliver: { continuation.yield($0) }, finish: { continuation.finish() })) }
        return stream
    }

    /// The same batches as `batches()`, handed to `handler` on the watcher's loop as soon as each is read:
    /// one thread hop fewer than an AsyncStream, for a consumer whose work per batch is short and never blocks.
    /// The handler runs one batch at a time, in order. Like `batches()`, this may be called once.
    public func start(handler: @escaping @Sendable (KernelBatch) -> Void) {
        let (first, _) = streamHandedOut.compareExchange(expected: false, desired: true, ordering: .relaxed)
        precondition(first, "KernelWatcher has one consumer: batches() or start(handler:), once")
        loop.execute { self.start((deliver: handler, finish: {})) }
    }

    /// For tests: stops reading notifications until `resumeReading()`, so that a storm overflows the socket for
    /// certain, however fast this machine reads. Call only after the first batch has arrived.
    func suspendReading() {
        loop.sync { self.source?.setEnabled(false) }
    }

    /// For tests: reads notifications again after `suspendReading()`.
    func resumeReading() {
        loop.sync { self.source?.setEnabled(true) }
    }

    /// The route queries of the flows clients watch (`RouteQuery(destination:source:)` per flow): asked after
    /// every change like the standing ones, and at once when the set changes (the answers arrive as a batch).
    public func setFlowQueries(_ queries: Set<RouteQuery>) {
        loop.execute {
            guard !self.isStopped else { return }
            // Delivered even when nothing changed yet: the flows left for later slices are asked from there.
            self.deliver(KernelBatch(events: self.routing.setFlowQueries(queries).map { [$0] } ?? []))
        }
    }

    /// Stops watching and finishes the stream. Safe to call more than once and from any thread; the work happens
    /// on the watcher's loop, after whatever it is doing now.
    public func stop() {
        loop.execute { self.shutdown() }
    }

    private func start(_ delivery: (deliver: (KernelBatch) -> Void, finish: () -> Void)) {
        guard !isStopped else {
            delivery.finish()
            return
        }
        self.delivery = delivery
        resync(.initial)
    }

    private func shutdown() {
        isStopped = true
        source?.cancel()
        source = nil
        retry = nil
        resolveRetry = nil
        expiryTimer = nil
        sliceSource = nil
        delivery?.finish()
        delivery = nil
    }

    /// Starts reading notifications; called once, after the first dump was delivered.
    private func startReading() {
        source = try? loop.watchReadable(notifications.fileDescriptor) { [weak self] in self?.drain() }
    }

    /// Reads notifications until the socket is drained (or for at most `maximumReceivesPerWakeup` reads) and
    /// delivers them as one batch. Lost notifications turn into a resync; nothing here is fatal.
    private func drain() {
        var events: [KernelEvent] = []
        for _ in 0..<Self.maximumReceivesPerWakeup {
            let result = calls.receiveNotifications(notifications)
            let received = notifications.sink.take()
            if result > 0 {
                events.appendMergingRules(received)
                continue
            }
            if result == 0 || result == -NLE_AGAIN { break }
            // ENOBUFS (-NLE_NOMEM), a truncated datagram, anything unreadable: some notifications are gone. Only
            // a dump is the truth now, and it supersedes what this read collected so far.
            events = []
            discardQueuedNotifications()
            resync(.overflow)
            if isStopped { return }
        }
        events = deviceFacts.enrich(events)
        events = tunnelPeers.enrich(events)
        let routingChange = notifications.sink.takeRoutingChange()
        if tunnelPeers.mayMove(routingChange) {
            // WireGuard announces no endpoint change: ask again whenever routing to its peers may have moved.
            let asked = events.compactMap { event -> Int32? in
                if case .linkChanged(let link) = event { return link.index }
                return nil
            }
            events += tunnelPeers.refresh(except: Set(asked))
        }
        events += routing.follow(events, routingChange: routingChange)
        deliver(KernelBatch(events: events))
        followResolution()
        if !routingChange.expiries.isEmpty { followExpiry() }
    }

    /// After the follower asked the kernel to resolve gateways: says once if the kernel refused, and keeps a
    /// one-shot timer for the next gateway to ask again (none while every gateway is known).
    private func followResolution() {
        if let refusal = routing.takeRefusal() { resolutionRefused(refusal) }
        let due = routing.nextResolveRetry
        guard due != resolveRetry?.due else { return }
        resolveRetry = nil
        guard let due else { return }
        let delay = max(due - .now, .zero)
        if let source = try? loop.schedule(after: delay, { [weak self] in self?.resolveAgain() }) {
            resolveRetry = (source, due)
        }
    }

    /// Keeps a one-shot timer at the next instant a route expires (none while no route does): the kernel stops
    /// using it then without a message. Not a poll: an instant known in advance.
    private func followExpiry() {
        let due = routing.nextExpiry
        guard due != expiryTimer?.due else { return }
        expiryTimer = nil
        guard let due else { return }
        let delay = max(due - .now, .zero)
        if let source = try? loop.schedule(after: delay, { [weak self] in self?.expireRoutes() }) {
            expiryTimer = (source, due)
        }
    }

    private func expireRoutes() {
        expiryTimer = nil
        guard !isStopped else { return }
        if let decided = routing.expire() { deliver(KernelBatch(events: [decided])) }
        followExpiry()
    }

    private func resolveAgain() {
        resolveRetry = nil
        guard !isStopped else { return }
        deliver(KernelBatch(events: routing.retryResolving()))
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
        guard !isStopped else { return }
        _ = requests.sink.takeRoutingChange()
        switch KernelDump.read(from: requests, calls: calls) {
        case .success(let outcome):
            // The dump's IPv6 routes that expire, read as they passed through (the rest of that change is moot).
            let expiries = requests.sink.takeRoutingChange().expiries
            pendingResync = nil
            retryDelayMilliseconds = Self.firstRetryDelayMilliseconds
            var snapshot = outcome.snapshot
            snapshot.links = tunnelPeers.restart(snapshot.links.map { deviceFacts.enrich($0) })
            deviceFacts.retain(only: Set(snapshot.links.map(\.index)))
            routing.restart(from: &snapshot, expiries: expiries)
            let reported: ResyncReason =
                reason == .initial ? .initial : outcome.wasInterrupted ? .dumpInterrupted : reason
            deliver(KernelBatch(events: [.snapshot(snapshot)], resync: reported))
            followResolution()
            followExpiry()
            if source == nil { startReading() }
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
        if let fresh { requests = fresh }
    }

    private func scheduleRetry(of reason: ResyncReason) {
        // The first failed dump's reason wins: an initial dump must be reported as initial.
        if pendingResync == nil { pendingResync = reason }
        let delay = Duration.milliseconds(retryDelayMilliseconds)
        retryDelayMilliseconds = min(retryDelayMilliseconds * 2, Self.longestRetryDelayMilliseconds)
        // A one-shot retry after a failure, not a poll: a healthy watcher has no timer at all.
        retry = try? loop.schedule(after: delay) { [weak self] in
            guard let self else { return }
            retry = nil
            guard let pending = pendingResync else { return }
            resync(pending)
        }
    }

    /// Delivers a batch (if it says anything), then leaves the flows' queries still to ask for a later turn.
    private func deliver(_ batch: KernelBatch) {
        var batch = batch
        batch.awaiting = routing.awaitingQueries
        // A batch with no events still goes when it is the one that ends the wait: the flows that waited for a
        // later slice are settled then, whether or not their answers changed.
        if !batch.events.isEmpty || batch.awaiting != deliveredAwaiting {
            deliveredAwaiting = batch.awaiting
            delivery?.deliver(batch)
        }
        guard routing.hasPendingSlices, !isStopped else { return }
        if sliceSource == nil { sliceSource = try? loop.sliced { [weak self] in self?.askNextSlice() } }
        sliceSource?.armOnce()
    }

    private func askNextSlice() {
        guard !isStopped else { return }
        deliver(KernelBatch(events: routing.askNextSlice().map { [$0] } ?? []))
    }
}
