import Logging
import NIOCore
import PathProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// One client connection: runs each call through the router, writes the replies in call order, and for WatchPath
/// streams every new path. A slow reader never holds the daemon up: while the socket is not writable only the newest
/// path is kept, and it is sent when the client catches up (a path is state, so older ones are worthless).
final class ClientConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = [UInt8]
    typealias OutboundOut = ByteBuffer

    private let router: CallRouter
    private let logger: Logger
    private var subscription: ChannelSubscription?
    /// GetHistory with "more": the connection then belongs to that stream, as to WatchPath's.
    private var historyStream: HistoryChannelStream?
    private var peer: PeerCredentials?
    /// Calls that arrived while a deferred reply was outstanding or the client's replies went unread: Varlink
    /// answers calls in the order they came.
    private var waitingFrames: [[UInt8]] = []
    private var isAwaitingReply = false
    /// With this many calls queued behind a deferred reply, reading from the client pauses until the queue
    /// drains: back-pressure, not disconnection, since pipelining calls is what Varlink allows (200 oneway
    /// SetConstrained calls in a row once cost the client its connection). What one read already brought in is
    /// still queued, so the queue is bounded by the read buffer, not by this number.
    private static let waitingFramesBeforePausing = 64
    /// Whether reading paused because of the queue above (not because replies went unread).
    private var isPausedForQueue = false

    /// Lines about misbehaving clients, shared by every connection and throttled: a client decides how often
    /// they happen.
    private let violations: ThrottledLog

    /// SO_PEERCRED as the server read it on accepting (nil if the socket could not say: then no policy rights).
    private let credentials: KernelPeerCredentials?

    /// Distinct watches per user; the place this connection's watch holds is given back when it closes.
    private let interestLimit: InterestLimit

    init(
        router: CallRouter, logger: Logger, violations: ThrottledLog, credentials: KernelPeerCredentials?,
        interestLimit: InterestLimit
    ) {
        self.credentials = credentials
        self.interestLimit = interestLimit
        self.router = router
        self.logger = logger
        self.violations = violations
    }

    func channelActive(context: ChannelHandlerContext) {
        // SO_PEERGROUPS: the supplementary groups the client held at connect. A client with more groups than the
        // buffer holds gets ERANGE: it then counts by its primary group alone, which denies, never grants. On the
        // channel's own loop the option is read at once, so this completes before the first call can arrive.
        if let credentials, let provider = context.channel as? any SocketOptionProvider {
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            let groups: EventLoopFuture<KernelPeerGroups> = provider.unsafeGetSocketOption(
                level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(KernelPeerGroups.option))
            groups.map(Optional.some).recover { _ in nil }.whenSuccess { groups in
                var slots: [UInt32] = []
                if let groups {
                    slots.reserveCapacity(KernelPeerGroups.capacity)
                    for index in 0..<KernelPeerGroups.capacity { slots.append(groups.slots[index]) }
                }
                handler.value.peer = PeerCredentials(
                    processID: credentials.processID, userID: credentials.userID, groupID: credentials.groupID,
                    supplementaryGroups: Authorizer.supplementaryGroups(fromZeroFilled: slots))
            }
        }
        DaemonCounters.bump(router.hub.counters.clientsConnected)
        DaemonCounters.bump(router.hub.counters.clientsOpen)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        // The client has gone (the frame decoder hands over what it still held as the connection closes): its
        // calls need no answer, and answering thousands of them would hold up every other client on this loop.
        guard context.channel.isActive else { return }
        guard subscription == nil, historyStream == nil else {
            // While a call streams, the connection is that call's (as sd-varlink has it): a reply to another call
            // would land among the stream's and read as its end.
            writeAndClose(
                VarlinkCodec().encodeError(
                    .protocolError(reason: "a call while another streams; use another connection")),
                context: context)
            return
        }
        // Behind a deferred reply, or while the client leaves its replies unread: the call waits its turn. One
        // read can bring in a thousand calls; answered at once, their replies would pile up without bound.
        guard !isAwaitingReply, context.channel.isWritable, waitingFrames.isEmpty else {
            waitingFrames.append(frame)
            if waitingFrames.count >= Self.waitingFramesBeforePausing && !isPausedForQueue {
                isPausedForQueue = true
                _ = context.channel.setOption(.autoRead, value: false)
            }
            return
        }
        handle(frame, context: context)
    }

    private func handle(_ frame: [UInt8], context: ChannelHandlerContext) {
        switch router.handle(frame, from: peer) {
        case .reply(let bytes):
            write(bytes, context: context)
        case .replyAndClose(let bytes):
            violations.notice("closing a client that broke the protocol")
            DaemonCounters.bump(router.hub.counters.protocolErrors)
            writeAndClose(bytes, context: context)
        case .noReply:
            break
        case .startWatching(let interest):
            startWatching(interest, context: context)
        case .followHistory(let query):
            let stream = HistoryChannelStream(query: query, channel: context.channel)
            historyStream = stream
            let stored = router.hub.history.entries(matching: query, follower: stream)
            write(HistoryChannelStream.storedReply(stored, continues: true), context: context)
        case .deferred(let start):
            isAwaitingReply = true
            let isOneway = (try? VarlinkCodec().decode(VarlinkCall.self, from: frame))?.oneway == true
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            let eventLoop = context.eventLoop
            start { bytes in
                eventLoop.execute {
                    let (handler, context) = loopBound.value
                    if !isOneway { handler.write(bytes, context: context) }
                    handler.resume(context: context)
                }
            }
        }
    }

    /// Handles the calls that queued behind a deferred reply or unread replies, until another one defers or the
    /// client stops reading again.
    private func resume(context: ChannelHandlerContext) {
        isAwaitingReply = false
        while !isAwaitingReply, !waitingFrames.isEmpty, context.channel.isActive, context.channel.isWritable {
            handle(waitingFrames.removeFirst(), context: context)
        }
        // Read again once the queue has drained, unless unread replies keep reading paused (see `write`).
        if isPausedForQueue && waitingFrames.isEmpty {
            isPausedForQueue = false
            if context.channel.isWritable { _ = context.channel.setOption(.autoRead, value: true) }
        }
    }

    /// One stream per connection, as Varlink has it: while a call streams, the connection belongs to it.
    private func startWatching(_ interest: Interest, context: ChannelHandlerContext) {
        // A socket that cannot say whose it is counts as nobody's, never as root's.
        if let refusal = interestLimit.admit(userID: userID, interest: interest) {
            write(VarlinkCodec().encodeError(.limitReached(reason: refusal)), context: context)
            return
        }
        let subscription = ChannelSubscription(interest: interest, channel: context.channel)
        self.subscription = subscription
        subscription.send(router.hub.subscribe(subscription))
        logger.debug(
            "a client subscribed",
            metadata: ["interest": "\(interest)", "subscribers": "\(router.hub.subscriberCount)"])
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            // The client reads again: answer the calls that waited, take new ones again (unless too many still
            // wait), and send the newest path if one waited.
            if !isAwaitingReply { resume(context: context) }
            if !isPausedForQueue { _ = context.channel.setOption(.autoRead, value: true) }
            subscription?.flushPending()
            historyStream?.flushPending()
        }
        context.fireChannelWritabilityChanged()
    }

    private var userID: UInt32 { credentials?.userID ?? 65534 }

    func channelInactive(context: ChannelHandlerContext) {
        if let subscription {
            router.hub.unsubscribe(subscription)
            interestLimit.release(userID: userID, interest: subscription.interest)
        }
        if let historyStream { router.hub.history.unfollow(historyStream) }
        DaemonCounters.bump(router.hub.counters.clientsOpen, by: -1)
        subscription = nil
        waitingFrames = []
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let framing = error as? FramingError {
            violations.notice("closing a client: \(framing)")
            DaemonCounters.bump(router.hub.counters.protocolErrors)
            writeAndClose(VarlinkCodec().encodeError(.protocolError(reason: framing.description)), context: context)
        } else {
            logger.debug("client connection error: \(error)")
            context.close(promise: nil)
        }
    }

    /// Writes a reply. A client that sends calls without reading the replies would make them pile up here without
    /// bound, so once the socket stops taking data, reading its calls stops too until it catches up.
    private func write(_ bytes: [UInt8], context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
        if !context.channel.isWritable {
            _ = context.channel.setOption(.autoRead, value: false)
        }
    }

    private func writeAndClose(_ bytes: [UInt8], context: ChannelHandlerContext) {
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(bytes: bytes)))
            .whenComplete { _ in channel.close(promise: nil) }
    }
}

/// `struct ucred` as SO_PEERCRED fills it (pid, uid, gid: three 32-bit fields); glibc hides its own declaration
/// behind _GNU_SOURCE, which the Glibc module does not define.
struct KernelPeerCredentials: Sendable {
    var processID: Int32 = 0
    var userID: UInt32 = 0
    var groupID: UInt32 = 0
}

/// The buffer SO_PEERGROUPS fills: up to `capacity` group IDs, zeros after the last one written (NIO zeroes it).
struct KernelPeerGroups: Sendable {
    /// SO_PEERGROUPS from <asm-generic/socket.h> (Linux 4.13), which the Glibc module does not export.
    static let option: Int32 = 59
    /// Far more groups than any login gives a user (glibc's default NGROUPS_MAX is 65536, but login sessions have
    /// tens); 4 KiB read once per connection.
    static let capacity = 1024
    var slots = InlineArray<1024, UInt32>(repeating: 0)
}
