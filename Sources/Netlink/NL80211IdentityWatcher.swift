// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import SDEvent
import Synchronization

/// Follows the SSID of every wireless interface through nl80211 (libnl-genl): subscribed to the "mlme" and "config"
/// multicast groups first, then one NL80211_CMD_GET_INTERFACE dump; after that, every CONNECT, ROAM, DISCONNECT,
/// NEW/SET/DEL_INTERFACE notification makes it ask the kernel again about that one interface, since CONNECT and ROAM
/// carry the BSSID but not the SSID. Events only: no polling, no periodic timer.
///
/// Without cfg80211 there is no "nl80211" family: the watcher reports `.unavailable` and yields nothing.
///
/// Sendable: everything that changes is `state`, loop-bound (checked) to `loop`'s thread, and so is every libnl call;
/// the sockets are created in `init` (possibly on a thread inside another network namespace) and handed over.
public final class NL80211IdentityWatcher: WiFiIdentitySource, Sendable {
    static let maximumReceivesPerWakeup = 256

    private let loop: SDEventLoop
    private let ownsLoop: Bool
    public let support: WiFiSupport
    /// Subscribed before the first dump, so nothing falls between the dump and the notifications after it.
    private let notifications: NL80211Socket?
    /// Requests only: GET_INTERFACE replies never mix with notifications.
    private let requests: NL80211Socket?
    private let streamHandedOut = Atomic<Bool>(false)
    /// What changes as the watcher runs; touched on the loop's thread only (or before it runs).
    private let state: LoopBound<State>

    private struct State {
        var table: [Int32: WiFiAssociation] = [:]
        var source: SDEventSource?
        var retry: SDEventSource?
        var handler: ((WiFiAssociation) -> Void)?
        var isStopped = false
        /// Finishes the stream of `associations()`, if that is how the watcher is consumed.
        var onStop: (() -> Void)?
        var isResyncPending = false
        var retryDelayMilliseconds = 50
        /// Notifications and replies that could not be decoded ("…, ignoring").
        var ignoredMessages = 0
    }

    /// Notifications and replies that could not be decoded ("…, ignoring"); for tests and diagnostics, on the loop.
    var ignoredMessages: Int { state.value.ignoredMessages }

    /// Opens the sockets, resolves nl80211 and joins its groups. Never fails: a machine without Wi-Fi, or any error
    /// on the way, gives a watcher whose `support()` says why and whose stream finishes at once.
    ///
    /// - Parameters:
    ///   - namespacePath: A network namespace to watch instead of the caller's ("/var/run/netns/NAME").
    ///   - loop: The loop that reads notifications and calls the handler; nil: a loop on a thread of its own.
    public init(namespacePath: String? = nil, loop: SDEventLoop? = nil) {
        var support = WiFiSupport.available
        do throws(NetlinkError) {
            let sockets = try NetworkNamespace.run(in: namespacePath) { () throws(NetlinkError) in
                let notifications = try NL80211Socket(nonBlocking: true)
                try notifications.subscribe(toGroup: NL80211_MULTICAST_GROUP_MLME)
                try notifications.subscribe(toGroup: NL80211_MULTICAST_GROUP_CONFIG)
                return (notifications, try NL80211Socket(nonBlocking: false))
            }
            (notifications, requests) = sockets
        } catch .objectNotFound {
            (notifications, requests) = (nil, nil)
            support = .unavailable(reason: "no Wi-Fi support: the kernel has no nl80211 (cfg80211)")
        } catch {
            (notifications, requests) = (nil, nil)
            support = .unavailable(reason: "no Wi-Fi support: nl80211 could not be reached: \(error)")
        }
        if let loop {
            (self.loop, ownsLoop) = (loop, false)
        } else {
            // Only tests and tools come here; the daemon passes its main loop.
            do {
                (self.loop, ownsLoop) = (try SDEventLoop.startedOnNewThread(name: "pathmond-nl80211"), true)
            } catch {
                fatalError("cannot start a thread for nl80211: \(error)")
            }
        }
        self.support = support
        state = LoopBound(State(), on: self.loop)
    }

    deinit {
        let state = self.state.valueInOwnersDeinit
        loop.dispose([state.source, state.retry], keepingUntilThen: notifications)
        if ownsLoop { loop.exit() }
    }

    public func start(handler: @escaping (WiFiAssociation) -> Void) {
        let (first, _) = streamHandedOut.compareExchange(expected: false, desired: true, ordering: .relaxed)
        precondition(first, "NL80211IdentityWatcher has one consumer: start(handler:) or associations(), once")
        guard support == .available else { return }
        let handler = UncheckedHandler(handler)
        loop.execute {
            guard !self.state.value.isStopped else { return }
            self.state.value.handler = handler.call
            self.resync()
        }
    }

    /// The same associations as `start(handler:)` gives, as a stream; it finishes when the watcher stops, or at
    /// once without Wi-Fi support.
    public func associations() -> AsyncStream<WiFiAssociation> {
        let (stream, continuation) = AsyncStream.makeStream(of: WiFiAssociation.self, bufferingPolicy: .unbounded)
        guard support == .available else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in self?.stop() }
        start { continuation.yield($0) }
        loop.execute { self.state.value.onStop = { continuation.finish() } }
        return stream
    }

    /// What the watcher knows now: one element per wireless interface, in interface order.
    public func snapshot() -> [WiFiAssociation] {
        loop.sync { self.state.value.table.values.sorted { $0.interfaceIndex < $1.interfaceIndex } }
    }

    /// Stops watching; safe from any thread, more than once.
    public func stop() {
        loop.execute {
            let onStop = self.withState { state in
                state.isStopped = true
                state.source?.cancel()
                state.source = nil
                state.retry = nil
                state.handler = nil
                defer { state.onStop = nil }
                return state.onStop
            }
            onStop?()
        }
    }

    /// One checked access to the state for a whole step; `body` must not call out of the watcher.
    private func withState<Result>(_ body: (inout State) -> Result) -> Result {
        body(&state.value)
    }

    private func startReading(_ socket: NL80211Socket) {
        let source = try? loop.watchReadable(socket.fileDescriptor) { [weak self] in self?.drain() }
        state.value.source = source
    }

    /// Reads notifications until drained, then asks about each interface they named, once, in order.
    private func drain() {
        guard let notifications else { return }
        var indices: [Int32] = []
        for _ in 0..<Self.maximumReceivesPerWakeup {
            let result = notifications.receive()
            for bytes in notifications.take() {
                guard let message = decoded(bytes), NL80211Message.changeCommands.contains(message.command),
                    let index = message.interfaceIndex, !indices.contains(index)
                else { continue }
                indices.append(index)
            }
            if result > 0 { continue }
            if result == 0 || result == -NLE_AGAIN { break }
            // ENOBUFS (-NLE_NOMEM) or an unreadable datagram: notifications are gone; only a dump is the truth.
            while notifications.receive() > 0 { _ = notifications.take() }
            return resync()
        }
        for index in indices { refresh(index) }
    }

    /// GET_INTERFACE for one interface: its reply is the truth, ENODEV means it has gone.
    private func refresh(_ index: Int32) {
        guard let requests else { return }
        switch requests.getInterfaces(index: index) {
        case .success(let replies):
            let found = replies.compactMap(decoded).compactMap(NL80211Message.association(in:))
            update(index, to: found.last { $0.interfaceIndex == index })
        case .failure(.noDevice), .failure(.objectNotFound), .failure(.invalidInput):
            // Deleted, or no longer a wireless interface (moved to another namespace, say).
            update(index, to: nil)
        case .failure:
            resync()
        }
    }

    /// Dumps every interface and reports what differs from what was known; on failure tries again later.
    private func resync() {
        guard !state.value.isStopped, let requests, let notifications else { return }
        switch requests.getInterfaces() {
        case .success(let replies):
            withState { state in
                state.isResyncPending = false
                state.retryDelayMilliseconds = 50
            }
            var fresh: [Int32: WiFiAssociation] = [:]
            for association in replies.compactMap(decoded).compactMap(NL80211Message.association(in:)) {
                fresh[association.interfaceIndex] = association
            }
            let known = Set(state.value.table.keys)
            for index in known.union(fresh.keys).sorted() { update(index, to: fresh[index]) }
            if state.value.source == nil { startReading(notifications) }
        case .failure:
            scheduleRetry()
        }
    }

    private func scheduleRetry() {
        let delay = withState { state -> Duration? in
            guard !state.isResyncPending else { return nil }
            state.isResyncPending = true
            let delay = Duration.milliseconds(state.retryDelayMilliseconds)
            state.retryDelayMilliseconds = min(state.retryDelayMilliseconds * 2, 5_000)
            return delay
        }
        guard let delay else { return }
        // A one-shot retry after a failure, not a poll: a healthy watcher has no timer at all.
        let retry = try? loop.schedule(after: delay) { [weak self] in
            guard let self, state.value.isResyncPending else { return }
            withState { state in
                state.retry = nil
                state.isResyncPending = false
            }
            resync()
        }
        state.value.retry = retry
    }

    /// Records what the kernel said about one interface (nil: not a wireless interface any more) and yields it if
    /// it differs: a new interface, another SSID, or the loss of an association.
    private func update(_ index: Int32, to association: WiFiAssociation?) {
        // The handler is called outside the state: it may come back in (a `snapshot()`, say).
        let (old, handler) = withState { state in
            defer { state.table[index] = association }
            return (state.table[index], state.handler)
        }
        if let association {
            if association != old { handler?(association) }
        } else if old?.ssid != nil {
            handler?(WiFiAssociation(interfaceIndex: index, ssid: nil))
        }
    }

    private func decoded(_ bytes: [UInt8]) -> NL80211Message? {
        do {
            return try NL80211Message.parse(bytes)
        } catch {
            state.value.ignoredMessages += 1
            return nil
        }
    }
}
