// SPDX-License-Identifier: Apache-2.0
/// Splits a byte stream into Varlink messages: each ends with a NUL byte. A message longer than the limit is an
/// error, so a peer that never sends NUL cannot make us buffer without bound.
public struct NULFramer: Sendable {
    private var buffer: [UInt8] = []
    /// Where the next message starts: a read that brings in a thousand pipelined calls is cut without moving the
    /// rest of the buffer once per call.
    private var start = 0
    /// How far past `start` is known to hold no NUL, so a message trickling in is scanned once.
    private var scanned = 0
    private let maximumSize: Int

    public init(maximumSize: Int = VarlinkCodec.maximumMessageSize) {
        self.maximumSize = maximumSize
    }

    /// Adds received bytes, copied at once (each overload is concrete: a generic one, called from another module,
    /// ran unspecialized and copied a reply byte by byte through the protocol's witnesses, 110,000 instructions for
    /// a path).
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(..<start)
            scanned -= start
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    public mutating func append(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBytes { append($0) }
    }

    public mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// The next complete message without its NUL, or nil until more bytes arrive.
    public mutating func nextMessage() throws(FramingError) -> [UInt8]? {
        guard let end = buffer[max(start, scanned)...].firstIndex(of: 0) else {
            scanned = buffer.count
            if buffer.count - start > maximumSize { throw .messageTooLarge(limit: maximumSize) }
            return nil
        }
        guard end - start <= maximumSize else { throw .messageTooLarge(limit: maximumSize) }
        let message = Array(buffer[start..<end])
        start = end + 1
        scanned = start
        if start == buffer.count {
            // Everything read is taken: the storage goes too. A subscriber's connection reads one call and then
            // idles for hours, and ten thousand of them kept a call's worth of buffer each (issue 41: memory per
            // idle subscriber); a pipelining client's next read allocates once.
            buffer = []
            start = 0
            scanned = 0
        }
        return message
    }

    /// Bytes received that do not yet end a message.
    public var pendingByteCount: Int { buffer.count - start }
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
