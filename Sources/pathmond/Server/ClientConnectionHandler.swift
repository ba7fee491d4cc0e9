import Logging
import NIOCore
import PathProtocol

/// One client connection: runs each call through the router, writes the replies, and for WatchPath streams
/// every new path. A slow reader never holds the daemon up: while the socket is not writable only the newest
/// path is kept, and it is sent when the client catches up (a path is state, so older ones are worthless).
final class ClientConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = [UInt8]
    typealias OutboundOut = ByteBuffer

    private let router: CallRouter
    private let logger: Logger
    private var subscription: ChannelPathSubscription?

    init(router: CallRouter, logger: Logger) {
        self.router = router
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch router.handle(frame) {
        case .reply(let bytes):
            write(bytes, context: context)
        case .replyAndClose(let bytes):
            logger.notice("closing a client that broke the protocol")
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(bytes: bytes)))
                .whenComplete { _ in channel.close(promise: nil) }
        case .noReply:
            break
        case .startWatching:
            startWatching(context: context)
        }
    }

    private func startWatching(context: ChannelHandlerContext) {
        guard subscription == nil else {
            // One stream per connection is all a client needs; a second WatchPath gets the path once.
            write(
                VarlinkCodec().encodeReply(Methods.PathReply(path: WirePath(router.hub.current.path))), context: context
            )
            return
        }
        let subscription = ChannelPathSubscription(channel: context.channel)
        self.subscription = subscription
        let initial = router.hub.subscribe(subscription)
        subscription.send(initial)
        logger.debug("a client subscribed to WatchPath", metadata: ["subscribers": "\(router.hub.subscriberCount)"])
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { subscription?.flushPending() }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let subscription { router.hub.unsubscribe(subscription) }
        subscription = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let framing = error as? FramingError {
            logger.notice("closing a client: \(framing)")
            let bytes = VarlinkCodec().encodeError(.protocolError(reason: framing.description))
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(bytes: bytes)))
                .whenComplete { _ in channel.close(promise: nil) }
        } else {
            logger.debug("client connection error: \(error)")
            context.close(promise: nil)
        }
    }

    private func write(_ bytes: [UInt8], context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
    }
}
