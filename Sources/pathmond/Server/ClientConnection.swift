// SPDX-License-Identifier: Apache-2.0
import Logging
import PathModel
import PathProtocol
import SDEvent
import SystemPackage

/// One client: reads its calls off the socket, runs each through the router, writes the replies in call order,
/// and for WatchPath, WatchFlow and GetHistory with "more" streams what follows.
///
/// Everything happens on the daemon's main loop, where the kernel's changes are read and published (systemd-
/// networkd's shape: one loop, nothing on it waits, long work in slices): an update is written to the subscriber's
/// socket by the thread that learned of it, with no hop in between, and a GetPath is answered between two slices of
/// a long change, as a pipelining client's calls are answered a share per turn (`CallShare`). A call that may wait
/// (a policy change: NSS and fsync) is deferred to the policy loop and its reply comes back here.
///
/// A slow reader never holds the daemon up: replies the socket refuses wait in `output`, and past
/// `highWatermark` bytes the client stops being read and its streams keep only state worth sending (the newest
/// path; history entries up to a bound) until it has taken all but `lowWatermark`.
///
/// @unchecked Sendable: a deferred call's reply is posted back to the main loop from the policy loop (`handle`);
/// only the main loop's thread touches the connection, which `Shared.loop`'s `LoopBound` read buffer checks on
/// every read.
final class ClientConnection: StreamOutput, @unchecked Sendable {
    static let highWatermark = 256 * 1024
    static let lowWatermark = 32 * 1024
    /// With this many calls queued behind a deferred reply, reading from the client pauses until the queue drains:
    /// back-pressure, not disconnection, since pipelining calls is what Varlink allows (200 oneway SetConstrained
    /// calls in a row once cost the client its connection). What one read already brought in is still queued, so
    /// the queue is bounded by the read buffer, not by this number.
    private static let waitingFramesBeforePausing = 64

    private let descriptor: FileDescriptor
    private let shared: Shared
    /// SO_PEERCRED and SO_PEERGROUPS as read on accepting; nil if the socket could not say (no policy rights).
    private let peer: PeerCredentials?
    private var source: SDEventSource?
    /// Calls answered this turn. A share spent with calls left waits for room for their replies (EPOLLOUT): the
    /// next turn, after the clients already waiting, as epoll's level-triggered readiness goes round them.
    private var share = CallShare()
    /// Calls were left in `framer` when a share ran out: nothing more is read until they are answered.
    private var framesLeft = false
    private var watchedEvents: SDIOEvents = .readable

    private var framer = NULFramer()
    private var output = PendingOutput()
    /// What of `output` is counted in the user's share (`OutputBudget`).
    private var countedBytes = 0
    /// False while the client leaves more unread than it, or its user, may: then it is not read.
    private var isCaughtUp = true
    /// A GetHistory reply being written from the shared encoding as the socket takes it; while it is, the
    /// connection takes no other call and no stream writes.
    private var historyReply: HistoryReplyCursor?
    /// Whether the connection streams the history once `historyReply` is written.
    private var followsHistoryAfterReply = false
    /// A last reply (an error) that waits for `historyReply` to be written whole, then ends the connection.
    private var lastReplyAfterHistory: [UInt8]?

    var isWritable: Bool { isCaughtUp && historyReply == nil }
    private var isOpen = true
    /// Set once the connection is to end after its last reply: nothing more is read or answered.
    private var closesWhenFlushed = false

    private var subscription: ChannelSubscription?
    /// GetHistory with "more": the connection then belongs to that stream, as to WatchPath's (from the moment the
    /// call comes: its stored entries are written first, a share per turn).
    private var historyStream: HistoryChannelStream?
    /// Calls that arrived while a deferred reply was outstanding or the client's replies went unread: Varlink
    /// answers calls in the order they came.
    private var waitingFrames: [[UInt8]] = []
    private var isAwaitingReply = false
    /// Whether reading paused because of the queue above (not because replies went unread).
    private var isPausedForQueue = false

    /// Serves a new client; call on the loop.
    init(
        descriptor: FileDescriptor, peer: PeerCredentials?, shared: Shared
    ) throws(SDEventError) {
        self.descriptor = descriptor
        self.peer = peer
        self.shared = shared
        try watch()
        DaemonCounters.bump(shared.router.hub.counters.clientsConnected)
        DaemonCounters.bump(shared.router.hub.counters.clientsOpen)
    }

    /// A socket that cannot say whose it is counts as nobody's, never as root's.
    private var userID: UInt32 { peer?.userID ?? 65534 }

    private var wantsToRead: Bool { isOpen && !closesWhenFlushed && !isPausedForQueue && !framesLeft && isWritable }

    /// Registers the descriptor with the loop, for what the connection waits for now.
    private func watch() throws(SDEventError) {
        watchedEvents = currentEvents
        // The source holds the connection until `close()` drops the source: a connection lives while it is open.
        // In the background: a kernel event is read before any client's calls, and a flood of calls takes turns
        // with a fan-out's slices instead of holding it up.
        source = try shared.loop.watch(descriptor.rawValue, for: watchedEvents, urgency: .background) {
            [self] events in
            ready(events)
        }
    }

    private func ready(_ events: SDIOEvents) {
        if events.contains(.writable) { flushOutput() }
        guard isOpen else { return }
        if share.isSpent {
            share.renew()
            answerWaiting()
            guard isOpen else { return }
        }
        if wantsToRead && !events.isDisjoint(with: [.readable, .hangUp, .error]) {
            // A client that sent calls and hung up at once is read first: its oneway calls still count.
            read()
        } else if !events.isDisjoint(with: [.hangUp, .error]), !share.isSpent {
            // Calls it sent before hanging up are answered first, a share per turn: oneway calls count.
            close()
        }
    }

    /// One read(2), then every complete call it brought in.
    private func read() {
        let count: Int
        do {
            count = try descriptor.read(into: shared.readBuffer.value.bytes)
        } catch Errno.wouldBlock {
            return
        } catch {
            shared.logger.debug("client connection error: \(error)")
            close()
            return
        }
        // The client has gone: calls still unread need no answer.
        guard count > 0 else { return close() }
        framer.append(UnsafeRawBufferPointer(rebasing: shared.readBuffer.value.bytes[..<count]))
        takeFrames()
        updateWatchedEvents()
    }

    /// Handles the complete calls read so far, until one ends the connection or the turn's share runs out.
    private func takeFrames() {
        do {
            while isOpen, !closesWhenFlushed {
                guard share.take(in: shared.loop.iteration) else { return framesLeft = true }
                guard let frame = try framer.nextMessage() else { return framesLeft = false }
                received(frame)
            }
        } catch {
            shared.violations.notice("closing a client: \(error)")
            DaemonCounters.bump(shared.router.hub.counters.protocolErrors)
            writeAndClose(VarlinkCodec().encodeError(.protocolError(reason: error.description)))
        }
    }

    private func received(_ frame: [UInt8]) {
        guard !isStreaming else { return refuseCallDuringStream() }
        // Behind a deferred reply, or while the client leaves its replies unread: the call waits its turn. One
        // read can bring in a thousand calls; answered at once, their replies would pile up without bound.
        guard !isAwaitingReply, isWritable, waitingFrames.isEmpty else {
            waitingFrames.append(frame)
            if waitingFrames.count >= Self.waitingFramesBeforePausing { isPausedForQueue = true }
            return
        }
        handle(frame)
    }

    /// Whether a call streams on this connection.
    private var isStreaming: Bool { subscription != nil || historyStream != nil }

    /// While a call streams, the connection is that call's (as sd-varlink has it): a reply to another call would
    /// land among the stream's and read as its end.
    private func refuseCallDuringStream() {
        writeAndClose(
            VarlinkCodec().encodeError(.protocolError(reason: "a call while another streams; use another connection")))
    }

    private func handle(_ frame: [UInt8]) {
        // Calls that waited behind a deferred reply come here too, not through `received`.
        guard !isStreaming else { return refuseCallDuringStream() }
        let router = shared.router
        switch router.handle(frame, from: peer) {
        case .reply(let bytes):
            write(bytes)
        case .replyAndClose(let bytes):
            shared.violations.notice("closing a client that broke the protocol")
            DaemonCounters.bump(router.hub.counters.protocolErrors)
            writeAndClose(bytes)
        case .noReply:
            break
        case .startWatching(let interest):
            // A refusal is one more reply, and the connection stays.
            if let refusal = shared.interestLimit.admit(userID: userID, interest: interest) {
                return write(VarlinkCodec().encodeError(.limitReached(reason: refusal)))
            }
            startWatching(interest)
        case .history(let query, let follows):
            // The stored entries are written from the encoding every caller shares, a turn's share at a time as
            // the socket takes them; entries recorded meanwhile wait in the stream, which starts once they are all
            // written.
            var stream: HistoryChannelStream?
            if follows {
                stream = HistoryChannelStream(query: query, output: self, loop: shared.loop)
                historyStream = stream
            }
            let encoded = router.hub.history.encoded(follower: stream)
            historyReply = HistoryReplyCursor(history: encoded, query: query, continues: follows)
            followsHistoryAfterReply = follows
            continueHistoryReply()
        case .deferred(let start):
            isAwaitingReply = true
            let connection = UncheckedTransfer(self)
            let loop = shared.loop
            start { bytes in
                // Always a later turn of the loop, even when called on it: never inside the call that deferred.
                loop.execute {
                    if !bytes.isEmpty { connection.value.write(bytes) }
                    connection.value.resume()
                }
            }
        }
    }

    /// Handles the calls that queued behind a deferred reply or unread replies, until another one defers or the
    /// client stops reading again; then reads again unless something still holds reading back.
    private func resume() {
        isAwaitingReply = false
        answerWaiting()
    }

    /// Answers the calls that waited, then those still in the framer, a turn's share at a time.
    private func answerWaiting() {
        while isOpen, !closesWhenFlushed, !isAwaitingReply, !waitingFrames.isEmpty, isWritable,
            share.take(in: shared.loop.iteration)
        {
            handle(waitingFrames.removeFirst())
        }
        if isPausedForQueue && waitingFrames.isEmpty { isPausedForQueue = false }
        if isOpen, framesLeft, waitingFrames.isEmpty { takeFrames() }
        updateWatchedEvents()
    }

    /// One stream per connection, as Varlink has it: while a call streams, the connection belongs to it.
    private func startWatching(_ interest: Interest) {
        precondition(subscription == nil && historyStream == nil, "a second stream on one connection")
        let hub = shared.router.hub
        let subscription = ChannelSubscription(interest: interest, output: self, loop: shared.loop)
        self.subscription = subscription
        // Nil: the first value waits for the kernel's answers about the client's routing, and comes as an update.
        if let first = hub.subscribe(subscription) { subscription.send(first) }
        shared.logger.debug(
            "a client subscribed", metadata: ["interest": "\(interest)", "subscribers": "\(hub.subscriberCount)"])
    }

    /// Writes a reply now, or queues what the socket does not take. A client that sends calls without reading the
    /// replies would make them pile up without bound, so past the high watermark its calls are not read either.
    func write(_ bytes: [UInt8]) {
        guard isOpen, !closesWhenFlushed else { return }
        do {
            try output.write(bytes, to: descriptor)
        } catch {
            // The client is gone (EPIPE, ECONNRESET): nothing more to tell it.
            return close()
        }
        let userIsOver = countOutput()
        if output.byteCount > Self.highWatermark || (userIsOver && !output.isEmpty) { isCaughtUp = false }
        updateWatchedEvents()
    }

    /// Brings the user's share up to date with what waits here; true when the user is over it.
    @discardableResult
    private func countOutput() -> Bool {
        let change = output.byteCount - countedBytes
        guard change != 0 else { return shared.outputBudget.isOver(userID) }
        countedBytes = output.byteCount
        if change < 0 { shared.memoryReturn.released(-change) }
        return shared.outputBudget.add(change, for: userID)
    }

    /// Writes the next part of a GetHistory reply, once older replies are out; when it is all written, the call
    /// is done: the next waiting call is answered, or the history stream starts.
    private func continueHistoryReply() {
        guard let cursor = historyReply, output.isEmpty else { return }
        switch cursor.write(to: descriptor) {
        case .failed:
            close()
        case .blocked, .yielded:
            updateWatchedEvents()
        case .finished:
            historyReply = nil
            if let last = lastReplyAfterHistory {
                lastReplyAfterHistory = nil
                closesWhenFlushed = false
                return writeAndClose(last)
            }
            if followsHistoryAfterReply {
                followsHistoryAfterReply = false
                historyStream?.release()
                guard isOpen else { return }
                // Calls that came after the streaming one are refused: the connection is the stream's.
                if !waitingFrames.isEmpty {
                    waitingFrames = []
                    isPausedForQueue = false
                    return refuseCallDuringStream()
                }
            } else if !isAwaitingReply {
                resume()
            }
            updateWatchedEvents()
        }
    }

    /// Sends a last reply, then closes once the client has it.
    private func writeAndClose(_ bytes: [UInt8]) {
        if historyReply != nil, isOpen, !closesWhenFlushed {
            // Never inside the reply being written: after it.
            lastReplyAfterHistory = bytes
            closesWhenFlushed = true
            return updateWatchedEvents()
        }
        write(bytes)
        guard isOpen else { return }
        closesWhenFlushed = true
        if output.isEmpty { close() } else { updateWatchedEvents() }
    }

    /// Writes what waited once the socket takes data again.
    private func flushOutput() {
        let drained: Bool
        do {
            drained = try output.flush(to: descriptor)
        } catch {
            return close()
        }
        countOutput()
        if drained && closesWhenFlushed && historyReply == nil { return close() }
        if drained && historyReply != nil {
            continueHistoryReply()
            guard isOpen else { return }
        }
        if !isCaughtUp && output.byteCount < Self.lowWatermark
            && (output.isEmpty || !shared.outputBudget.isOver(userID))
        {
            // The client reads again: answer the calls that waited, and send the newest path if one waited.
            isCaughtUp = true
            if isWritable {
                if !isAwaitingReply { resume() }
                subscription?.flushPending()
                historyStream?.flushPending()
            }
        }
        updateWatchedEvents()
    }

    /// Waits for input only while calls are taken, and for room in the socket only while output waits.
    private func updateWatchedEvents() {
        guard isOpen, let source else { return }
        let events = currentEvents
        guard events != watchedEvents else { return }
        watchedEvents = events
        source.setIOEvents(events)
    }

    private var currentEvents: SDIOEvents {
        var events: SDIOEvents = []
        if wantsToRead { events.insert(.readable) }
        if !output.isEmpty || historyReply != nil || share.isSpent { events.insert(.writable) }
        return events
    }

    /// Ends the connection: its watch and place go back, and the descriptor is closed. Safe to call again.
    func close() {
        guard isOpen else { return }
        isOpen = false
        source?.cancel()
        source = nil
        framesLeft = false
        try? descriptor.close()
        let hub = shared.router.hub
        // A subscription exists only for a watch the interest limit admitted: its interest is given back.
        if let subscription {
            hub.unsubscribe(subscription)
            shared.interestLimit.release(userID: userID, interest: subscription.interest)
        }
        if let historyStream { hub.history.unfollow(historyStream) }
        subscription = nil
        historyStream = nil
        historyReply = nil
        // What the connection held goes back to the system once the clients stop closing (a flood leaving).
        shared.memoryReturn.released(waitingFrames.reduce(0) { $0 + $1.count + 32 } + 64 * 1024)
        waitingFrames = []
        // Whatever still holds the connection (a fan-out slice queued for it) holds little.
        output = PendingOutput()
        countOutput()
        framer = NULFramer()
        DaemonCounters.bump(hub.counters.clientsOpen, by: -1)
        shared.connectionLimit.release(userID: userID)
        shared.registry.remove(self)
    }
}
