import NIOCore
import PathProtocol

/// Answers a client the daemon will not serve with one Varlink error, then closes: a clear refusal instead of a
/// connection that hangs.
final class RefusingHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let error: VarlinkError

    init(error: VarlinkError) {
        self.error = error
    }

    func channelActive(context: ChannelHandlerContext) {
        let bytes = VarlinkCodec().encodeError(error)
        let buffer = context.channel.allocator.buffer(bytes: bytes)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in channel.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Whatever the client sent is not read: it is being refused.
    }
}
