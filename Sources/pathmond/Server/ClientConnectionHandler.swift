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
    private var peer: PeerCredentials?
    /// Calls that arrived while a deferred reply was outstanding: Varlink answers calls in the order they came.
    private var waitingFrames: [[UInt8]] = []
    private var isAwaitingReply = false
    /// More calls than this queued behind one deferred reply is a client flooding us: it is disconnected.
    private static let maximumWaitingFrames = 64

    init(router: CallRouter, logger: Logger) {
        self.router = router
        self.logger = logger
    }

    func channelActive(context: ChannelHandlerContext) {
        // SO_PEERCRED: the uid, gid and pid the kernel recorded when the client connected. On the channel's own
        // loop the option is read at once, so this completes before the first call can arrive.
        if let provider = context.channel as? any SocketOptionProvider {
            let future: EventLoopFuture<KernelPeerCredentials> = provider.unsafeGetSocketOption(
                level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            future.whenSuccess { credentials in
                handler.value.peer = PeerCredentials(
                    processID: credentials.processID, userID: credentials.userID, groupID: credentials.groupID)
            }
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        guard subscription == nil else {
            // While a call streams, the connection is that call's (as sd-varlink has it): a reply to another call
            // would land among the stream's and read as its end.
            writeAndClose(
                VarlinkCodec().encodeError(
                    .protocolError(reason: "a call while another streams; use another connection")),
                context: context)
            return
        }
        guard !isAwaitingReply else {
            guard waitingFrames.count < Self.maximumWaitingFrames else {
                writeAndClose(
                    VarlinkCodec().encodeError(.protocolError(reason: "too many calls waiting for a reply")),
                    context: context)
                return
            }
            waitingFrames.append(frame)
            return
        }
        handle(frame, context: context)
    }

    private func handle(_ frame: [UInt8], context: ChannelHandlerContext) {
        switch router.handle(frame, from: peer) {
        case .reply(let bytes):
            write(bytes, context: context)
        case .replyAndClose(let bytes):
            logger.notice("closing a client that broke the protocol")
            writeAndClose(bytes, context: context)
        case .noReply:
            break
        case .startWatching(let interest):
            startWatching(interest, context: context)
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

    /// Handles the calls that queued behind a deferred reply, until another one defers.
    private func resume(context: ChannelHandlerContext) {
        isAwaitingReply = false
        while !isAwaitingReply, !waitingFrames.isEmpty, context.channel.isActive {
            handle(waitingFrames.removeFirst(), context: context)
        }
    }

    /// One stream per connection, as Varlink has it: while a call streams, the connection belongs to it.
    private func startWatching(_ interest: Interest, context: ChannelHandlerContext) {
        let subscription = ChannelSubscription(interest: interest, channel: context.channel)
        self.subscription = subscription
        subscription.send(router.hub.subscribe(subscription))
        logger.debug(
            "a client subscribed",
            metadata: ["interest": "\(interest)", "subscribers": "\(router.hub.subscriberCount)"])
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            // The client reads again: take its calls again, and send the newest path if one waited.
            _ = context.channel.setOption(.autoRead, value: true)
            subscription?.flushPending()
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let subscription { router.hub.unsubscribe(subscription) }
        subscription = nil
        waitingFrames = []
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let framing = error as? FramingError {
            logger.notice("closing a client: \(framing)")
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
