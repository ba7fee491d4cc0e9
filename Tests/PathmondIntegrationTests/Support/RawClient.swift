// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PathProtocol

/// A deliberately bare Varlink client for misbehaving on purpose: raw bytes out, NUL-split JSON in.
/// @unchecked Sendable: each instance is used by one task at a time.
final class RawClient: @unchecked Sendable {
    private let descriptor: Int32
    private var buffer: [UInt8] = []

    init(socketPath: String, receiveBuffer: Int32? = nil) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        guard let address = UnixSocketAddress(path: socketPath) else { throw POSIXError(.ENAMETOOLONG) }
        let result = address.withSocketAddress { connect(descriptor, $0, $1) }
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    private var isClosed = false

    deinit { close() }

    /// Closes once: a second close(2) could hit whatever descriptor reused the number meanwhile.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
        Glibc.close(descriptor)
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            // The daemon may close on us mid-send (oversized message): what it said before is still readable.
            guard written > 0 else { return }
            offset += written
        }
    }

    /// Sends one message (NUL appended) and reads one reply.
    func call(_ json: String) throws -> [String: Any] {
        try send(Array(json.utf8) + [0])
        return try receive()
    }

    /// The next message; fails after 10 s without one.
    func receive() throws -> [String: Any] {
        guard let message = try receive(timeout: .seconds(10)) else { throw POSIXError(.ETIMEDOUT) }
        return message
    }

    /// The next message, or nil if none arrives within `timeout` or the peer closed.
    func receive(timeout: Duration) throws -> [String: Any]? {
        while true {
            if let end = buffer.firstIndex(of: 0) {
                let frame = Data(buffer[..<end])
                buffer.removeSubrange(...end)
                return try JSONSerialization.jsonObject(with: frame) as? [String: Any] ?? [:]
            }
            guard waitReadable(timeout) else { return nil }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            buffer += chunk[..<count]
        }
    }

    /// True once the daemon has closed its end (recv returns 0 or ECONNRESET).
    func isClosedByPeer() -> Bool {
        guard waitReadable(.seconds(10)) else { return false }
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, 0) <= 0
    }

    private func waitReadable(_ timeout: Duration) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(
            timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        return poll(&poller, 1, milliseconds) > 0
    }
}
