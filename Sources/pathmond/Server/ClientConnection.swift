// SPDX-License-Identifier: Apache-2.0
import Logging
import PathModel
import PathProtocol
import SDEvent
import SystemPackage

/// One client: reads its calls off the socket, runs each through the router, writes the replies in call order,
/// and for WatchPath, WatchFlow and GetHistory with "more" streams what follows. Where it stands is one `Phase`.
///
/// Everything happens on the daemon's main loop, where the kernel's changes are read and published (systemd-
/// networkd's shape: one loop, nothing on it waits, long work in slices): an update is written to the subscriber's
/// socket by the thread that learned of it, with no hop in between, and a GetPath is answered between two slices of
/// a long change, as a pipelining client's calls are answered a share per turn (`CallShare`). A call that may wait
/// (a policy change: NSS and fsync) is deferred to the policy loop and its reply comes back here.
///
/// A slow reader never holds the daemon up: replies the socket refuses wait in `output`, and once the client is
/// behind (`ConnectionOutput`) it stops being read and its streams keep only state worth sending (the newest path;
/// history entries up to a bound) until it catches up. GetHistory replies are in ClientConnection+HistoryReply.swift;
/// the members it shares are internal for that reason alone.
///
/// @unchecked Sendable: a deferred call's reply is posted back to the main loop from the policy loop (`handle`);
/// only the main loop's thread touches the connection, which `Shared.loop`'s `LoopBound` read buffer checks on
/// every read.
final class ClientConnection: StreamOutput, @unchecked Sendable {
    let descriptor: FileDescriptor
    let shared: Shared
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
    /// What the client has not taken yet, and whether it keeps up.
    var output = ConnectionOutput()
    /// Where the connection stands: the one place that says what it may do next.
    var phase = Phase.answering
    /// Calls read but not answered yet, in order.
    var waiting = WaitingCalls()

    /// Whether a stream may write now: not while the client is behind, nor inside a GetHistory reply.
    var isWritable: Bool { output.isCaughtUp && !phase.isWritingHistory }

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
    var userID: UInt32 { peer?.userID ?? 65534 }

    private var wantsToRead: Bool { phase.readsCalls && !waiting.isFull && !framesLeft && output.isCaughtUp }

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
        guard !phase.isClosed else { return }
        if share.isSpent {
            share.renew()
            answerWaiting()
            guard !phase.isClosed else { return }
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
            while !phase.isEnding {
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
        guard !phase.isStreaming else { return refuseCallDuringStream() }
        // Behind a deferred reply or a GetHistory reply, or while the client leaves its replies unread: the call
        // waits its turn. One read can bring in a thousand calls; answered at once, their replies would pile up
        // without bound.
        guard phase.handlesCalls, output.isCaughtUp, waiting.isEmpty else { return waiting.append(frame) }
        handle(frame)
    }

    /// While a call streams, the connection is that call's (as sd-varlink has it): a reply to another call would
    /// land among the stream's and read as its end.
    func refuseCallDuringStream() {
        writeAndClose(
            VarlinkCodec().encodeError(.protocolError(reason: "a call while another streams; use another connection")))
    }

    private func handle(_ frame: [UInt8]) {
        // Calls that waited behind a deferred reply come here too, not through `received`.
        guard !phase.isStreaming else { return refuseCallDuringStream() }
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
            if let refusal = shared.interestLimit.value.admit(userID: userID, interest: interest) {
                return write(VarlinkCodec().encodeError(.limitReached(reason: refusal)))
            }
            startWatching(interest)
        case .history(let query, let follows):
            startHistoryReply(query, follows: follows)
        case .deferred(let start):
            phase = .awaitingReply
            let connection = UncheckedTransfer(self)
            let loop = shared.loop
            start { bytes in
                // Always a later turn of the loop, even when called on it: never inside the call that deferred.
                loop.execute { connection.value.deferredReplyCame(bytes) }
            }
        }
    }

    /// Writes a deferred call's reply, then answers the calls that queued behind it, until another one defers or
    /// the client stops reading again. Nothing, if the connection ended meanwhile.
    private func deferredReplyCame(_ bytes: [UInt8]) {
        guard case .awaitingReply = phase else { return }
        if !bytes.isEmpty { write(bytes) }
        guard case .awaitingReply = phase else { return }
        phase = .answering
        answerWaiting()
    }

    /// Answers the calls that waited, then those still in the framer, a turn's share at a time; then reads again
    /// unless something still holds reading back.
    func answerWaiting() {
        while phase.handlesCalls, !waiting.isEmpty, output.isCaughtUp, share.take(in: shared.loop.iteration) {
            handle(waiting.removeFirst())
        }
        if framesLeft, waiting.isEmpty { takeFrames() }
        updateWatchedEvents()
    }

    /// One stream per connection, as Varlink has it: while a call streams, the connection belongs to it.
    private func startWatching(_ interest: Interest) {
        guard case .answering = phase else { preconditionFailure("a stream while the connection is \(phase)") }
        let hub = shared.router.hub
        let subscription = ChannelSubscription(interest: interest, output: self, loop: shared.loop)
        phase = .watching(subscription)
        // Nil: the first value waits for the kernel's answers about the client's routing, and comes as an update.
        if let first = hub.subscribe(subscription) { subscription.send(first) }
        shared.logger.debug(
            "a client subscribed", metadata: ["interest": "\(interest)", "subscribers": "\(hub.subscriberCount)"])
    }

    /// Writes a reply now, or queues what the socket does not take; nothing once the connection ends.
    func write(_ bytes: [UInt8]) {
        guard !phase.isEnding else { return }
        send(bytes)
    }

    /// Writes whatever the phase (a last reply too); a client that is gone is closed.
    private func send(_ bytes: [UInt8]) {
        do {
            try output.write(bytes, to: descriptor, of: userID, in: shared)
        } catch {
            // The client is gone (EPIPE, ECONNRESET): nothing more to tell it.
            return close()
        }
        updateWatchedEvents()
    }

    /// Sends a last reply, then closes once the client has it. During a GetHistory reply, after that reply.
    func writeAndClose(_ bytes: [UInt8]) {
        switch phase {
        case .closing, .closed, .writingHistory(_, then: .lastReply):
            return
        case .writingHistory(let cursor, let after):
            // Never inside the reply being written: after it.
            phase = .writingHistory(cursor, then: .lastReply(bytes))
            endStream(of: .writingHistory(cursor, then: after))
            updateWatchedEvents()
        case .answering, .awaitingReply, .watching, .followingHistory:
            let ending = phase
            phase = .closing
            endStream(of: ending)
            closeOnceTaken(bytes)
        }
    }

    /// Writes the last reply of a closing connection, and closes it once the client has taken everything.
    func closeOnceTaken(_ last: [UInt8]) {
        send(last)
        guard case .closing = phase else { return }
        if output.isEmpty { close() } else { updateWatchedEvents() }
    }

    /// Writes what waited once the socket takes data again.
    private func flushOutput() {
        let drained: Bool
        do {
            drained = try output.flush(to: descriptor, of: userID, in: shared)
        } catch {
            return close()
        }
        if drained, case .closing = phase { return close() }
        if drained && phase.isWritingHistory {
            continueHistoryReply()
            guard !phase.isClosed else { return }
        }
        if output.catchUp(of: userID, in: shared) {
            // The client reads again: answer the calls that waited, and send what a stream kept for it.
            switch phase {
            case .answering:
                answerWaiting()
            case .watching(let subscription):
                answerWaiting()
                subscription.flushPending()
            case .followingHistory(let stream):
                answerWaiting()
                stream.flushPending()
            case .awaitingReply, .writingHistory, .closing, .closed:
                break
            }
        }
        updateWatchedEvents()
    }

    /// Waits for input only while calls are taken, and for room in the socket only while output waits.
    func updateWatchedEvents() {
        guard !phase.isClosed, let source else { return }
        let events = currentEvents
        guard events != watchedEvents else { return }
        watchedEvents = events
        source.setIOEvents(events)
    }

    private var currentEvents: SDIOEvents {
        var events: SDIOEvents = []
        if wantsToRead { events.insert(.readable) }
        if !output.isEmpty || phase.isWritingHistory || share.isSpent { events.insert(.writable) }
        return events
    }

    /// Gives back what a stream held: the hub's subscription and the user's place for its interest, or the
    /// history's follower. Called as the connection leaves `phase`, once.
    private func endStream(of phase: Phase) {
        let hub = shared.router.hub
        switch phase {
        case .watching(let subscription):
            hub.unsubscribe(subscription)
            shared.interestLimit.value.release(userID: userID, interest: subscription.interest)
        case .followingHistory(let stream), .writingHistory(_, then: .follow(let stream)):
            hub.history.unfollow(stream)
        case .answering, .awaitingReply, .writingHistory, .closing, .closed:
            break
        }
    }

    /// Ends the connection: its watch and place go back, and the descriptor is closed. Safe to call again.
    func close() {
        guard !phase.isClosed else { return }
        let ending = phase
        phase = .closed
        source?.cancel()
        source = nil
        framesLeft = false
        try? descriptor.close()
        endStream(of: ending)
        // What the connection held goes back to the system once the clients stop closing (a flood leaving).
        shared.memoryReturn.released(waiting.byteCount + 64 * 1024)
        waiting.removeAll()
        // Whatever still holds the connection (a fan-out slice queued for it) holds little.
        output.discard(of: userID, in: shared)
        framer = NULFramer()
        DaemonCounters.bump(shared.router.hub.counters.clientsOpen, by: -1)
        shared.connectionLimit.value.release(userID: userID)
        // Let go of here, outside the registry's access: the connection may end with it.
        withExtendedLifetime(shared.registry.value.remove(self)) {}
    }
}
