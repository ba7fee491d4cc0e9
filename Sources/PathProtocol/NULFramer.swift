/// Splits a byte stream into Varlink messages: each ends with a NUL byte. A message longer than the limit is an
/// error, so a peer that never sends NUL cannot make us buffer without bound.
public struct NULFramer: Sendable {
    private var buffer: [UInt8] = []
    private var scanned = 0
    private let maximumSize: Int

    public init(maximumSize: Int = VarlinkCodec.maximumMessageSize) {
        self.maximumSize = maximumSize
    }

    /// Adds received bytes.
    public mutating func append<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        buffer.append(contentsOf: bytes)
    }

    /// The next complete message without its NUL, or nil until more bytes arrive.
    public mutating func nextMessage() throws(FramingError) -> [UInt8]? {
        guard let end = buffer[scanned...].firstIndex(of: 0) else {
            scanned = buffer.count
            if buffer.count > maximumSize { throw .messageTooLarge(limit: maximumSize) }
            return nil
        }
        guard end <= maximumSize else { throw .messageTooLarge(limit: maximumSize) }
        let message = Array(buffer[..<end])
        buffer.removeSubrange(...end)
        scanned = 0
        return message
    }

    /// Bytes received that do not yet end a message.
    public var pendingByteCount: Int { buffer.count }
}

/// A stream that breaks the framing rules.
public enum FramingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// More than `limit` bytes arrived without a terminating NUL.
    case messageTooLarge(limit: Int)

    public var description: String {
        switch self {
        case .messageTooLarge(let limit): return "message larger than \(limit) bytes"
        }
    }
}
