// SPDX-License-Identifier: Apache-2.0
import PathProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// A bare Varlink client on a Unix stream socket: bytes out, NUL-delimited frames in. The benches need thousands
/// of these and exact control over when they read, which the client library (rightly) does not give.
final class VarlinkSocket {
    let fd: Int32
    private var pending: [UInt8] = []

    /// The calls several benches make alike.
    static let getPathCall = #"{"method":"io.pathmond.GetPath","parameters":{}}"#
    static let watchPathCall = #"{"method":"io.pathmond.WatchPath","parameters":{},"more":true}"#

    /// Connects to `path`; `sendTimeoutMilliseconds` bounds a connect to a listener whose accept queue is full.
    init(path: String, sendTimeoutMilliseconds: Int = 5000) throws(BenchError) {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system("socket(AF_UNIX)", errno) }
        var timeout = timeval(
            tv_sec: sendTimeoutMilliseconds / 1000, tv_usec: (sendTimeoutMilliseconds % 1000) * 1000)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let address = UnixSocketAddress(path: path) else {
            close(fd)
            throw .setup("not a socket path (empty or too long): \(path)")
        }
        let result = address.withSocketAddress { connect(fd, $0, $1) }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw .system("connect(\(path))", code)
        }
    }

    /// Takes an open stream socket (one end of a socketpair) as it is; it closes when this goes away.
    init(adopting fd: Int32) {
        self.fd = fd
    }

    deinit {
        close(fd)
    }

    /// Sends all of `bytes` (blocking); false if the daemon closed or the send timed out.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Sends one call (the NUL appended).
    @discardableResult
    func send(_ json: String) -> Bool { send(Array(json.utf8) + [0]) }

    /// The next frame (without its NUL), waiting at most `timeoutMilliseconds`; nil on timeout or close.
    func receive(timeoutMilliseconds: Int32) -> [UInt8]? {
        let deadline = monotonicNanoseconds() + UInt64(timeoutMilliseconds) * 1_000_000
        while true {
            if let frame = nextFrame() { return frame }
            let now = monotonicNanoseconds()
            guard now < deadline else { return nil }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = Glibc.poll(&poller, 1, Int32((deadline - now) / 1_000_000) + 1)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0, readAvailable() > 0 else { return nil }
        }
    }

    /// Sends a call and waits for one reply frame.
    func call(_ json: String, timeoutMilliseconds: Int32 = 10_000) throws(BenchError) -> [UInt8] {
        guard send(json) else { throw .system("send(varlink)", errno) }
        guard let reply = receive(timeoutMilliseconds: timeoutMilliseconds) else {
            throw .setup("no reply from pathmond within \(timeoutMilliseconds) ms to \(json)")
        }
        return reply
    }

    /// Reads whatever the socket holds now without blocking; the byte count (0 at end of file or nothing there).
    @discardableResult
    func readAvailable() -> Int {
        var total = 0
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return total }
            pending += chunk[..<count]
            total += count
        }
    }

    /// Splits off one complete frame from what was read, if there is one.
    func nextFrame() -> [UInt8]? {
        guard let end = pending.firstIndex(of: 0) else { return nil }
        let frame = Array(pending[..<end])
        pending.removeSubrange(...end)
        return frame
    }
}

extension [UInt8] {
    /// Whether a frame's JSON contains `needle` once whitespace is ignored (the daemon's spacing is not ours to fix).
    func containsCompact(_ needle: String) -> Bool {
        let compact = filter { $0 != 0x20 && $0 != 0x0a && $0 != 0x09 }
        let target = Array(needle.utf8)
        guard target.count <= compact.count else { return false }
        for start in 0...(compact.count - target.count) where compact[start] == target[0] {
            if compact[start..<(start + target.count)].elementsEqual(target) { return true }
        }
        return false
    }
}
