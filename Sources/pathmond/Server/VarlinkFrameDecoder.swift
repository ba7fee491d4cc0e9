import NIOCore
import PathProtocol

/// Splits the byte stream of one connection into Varlink messages at each NUL. A message over the size limit is
/// an error, so a client that never sends NUL cannot make the daemon buffer without bound.
struct VarlinkFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = [UInt8]

    let maximumSize: Int
    /// How many readable bytes are known to hold no NUL, so a message trickling in is scanned once, not again on
    /// every read.
    private var scanned = 0

    init(maximumSize: Int = VarlinkCodec.maximumMessageSize) {
        self.maximumSize = maximumSize
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let readable = buffer.readableBytesView
        guard let end = readable.dropFirst(scanned).firstIndex(of: 0) else {
            scanned = readable.count
            if buffer.readableBytes > maximumSize { throw FramingError.messageTooLarge(limit: maximumSize) }
            return .needMoreData
        }
        scanned = 0
        let length = end - readable.startIndex
        guard length <= maximumSize else { throw FramingError.messageTooLarge(limit: maximumSize) }
        // The bytes are there: readBytes(length:) cannot return nil.
        let message = buffer.readBytes(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        context.fireChannelRead(wrapInboundOut(message))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        // A half-sent message at EOF is dropped: there is nobody left to answer.
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }
}
