import Locking
// SPDX-License-Identifier: Apache-2.0
import PathProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking Varlink connection over a Unix stream socket: send a call, read NUL-framed replies.
final class VarlinkSocket: Sendable {
    private let descriptor: Int32
    private let path: String
    /// Reads happen on one thread at a time (the caller's); the framer is guarded only to satisfy Sendable. Replies
    /// may be large (a host with a thousand interfaces), so the bound is the reply bound, not the call bound.
    private let framer = Locked(NULFramer(maximumSize: VarlinkCodec.maximumReplySize))
    /// Set once a reply was left unread (a call timed out, a stream was left, a frame could not be read): what
    /// arrives next would answer that earlier call, and Varlink replies carry nothing to match them to their call.
    /// The connection is then shut down, and every later send or receive throws this error instead.
    private let abandonment = Locked<PathmondClientError?>(nil)

    /// How long connecting may block: a listener whose queue is full (a stuck daemon, or one flooded with
    /// connections) would otherwise hold the caller for ever.
    static let connectTimeout = Duration.seconds(5)

    init(path: String) throws(PathmondClientError) {
        guard let address = UnixSocketAddress(path: path) else {
            throw .system(operation: "connect to \(path)", errno: ENAMETOOLONG)
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .system(operation: "socket", errno: errno) }
        // A Unix socket's connect waits for room in the listener's queue for at most the send timeout.
        var limit = timeval(Self.connectTimeout)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let result = address.withSocketAddress { connect(descriptor, $0, $1) }
        guard result == 0 else {
            let code = errno
            close(descriptor)
            switch code {
            case ENOENT, ECONNREFUSED, ENOTDIR: throw .daemonNotRunning(socketPath: path)
            case EACCES, EPERM: throw .permissionDenied(socketPath: path)
            case EAGAIN, EINPROGRESS, ETIMEDOUT: throw .timedOut(socketPath: path)
            default: throw .system(operation: "connect to \(path)", errno: code)
            }
        }
        self.descriptor = descriptor
        self.path = path
    }

    /// The process at the other end as the kernel recorded it at connect (SO_PEERCRED's pid, numbered in this
    /// process's PID namespace): the one that listens, which is the service manager's for an activated socket. nil
    /// when the kernel cannot say (0: a process outside this PID namespace).
    var peerProcessID: Int32? {
        // `struct ucred`: glibc declares it only under _GNU_SOURCE, which the Glibc module does not define.
        var credentials: (processID: Int32, userID: UInt32, groupID: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0, credentials.processID > 0
        else { return nil }
        return credentials.processID
    }

    /// Makes `receive` give up after `timeout` (nil: wait as long as it takes, as a stream must).
    func setReceiveTimeout(_ timeout: Duration?) {
        var value = timeout.map(timeval.init) ?? timeval()
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        close(descriptor)
    }

    /// Gives the connection up: shuts it down (pathmond sees it close and stops any stream), and makes every later
    /// call throw `error` rather than read a reply meant for an earlier one. The first reason given stays.
    func abandon(_ error: PathmondClientError) {
        abandonment.withLock { if $0 == nil { $0 = error } }
        shutdown()
    }

    private func checkNotAbandoned() throws(PathmondClientError) {
        if let error = abandonment.withLock({ $0 }) { throw error }
    }

    /// Sends one encoded message (NUL included).
    func send(_ bytes: [UInt8]) throws(PathmondClientError) {
        try checkNotAbandoned()
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { buffer in
                Glibc.send(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw errno == EPIPE || errno == ECONNRESET ? .disconnected : .system(operation: "send", errno: errno)
            }
            offset += written
        }
    }

    /// Blocks until one whole message has arrived; returns it without its NUL.
    func receive() throws(PathmondClientError) -> [UInt8] {
        try checkNotAbandoned()
        // Not zeroed: recv writes what it reports (an array of zeros cost every reply 65,000 instructions).
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
        defer { chunk.deallocate() }
        while true {
            let message: [UInt8]?
            do {
                message = try framer.withLock { framer throws(FramingError) in try framer.nextMessage() }
            } catch {
                // Where the next reply begins is lost with the frame.
                abandon(.invalidReply(error.description))
                throw .invalidReply(error.description)
            }
            if let message { return message }
            let count = recv(descriptor, chunk.baseAddress, chunk.count, 0)
            if count == 0 { throw .disconnected }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    // The reply may still come, late: it must not be read as the next call's.
                    abandon(.timedOut(socketPath: path))
                    throw .timedOut(socketPath: path)
                }
                throw errno == ECONNRESET ? .disconnected : .system(operation: "recv", errno: errno)
            }
            framer.withLock { $0.append(UnsafeRawBufferPointer(rebasing: chunk[..<count])) }
        }
    }

    /// Wakes a blocked `receive` (it then reports `.disconnected`); safe from any thread.
    func shutdown() {
        _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
    }
}

extension timeval {
    /// A socket timeout of `duration` (whole microseconds).
    fileprivate init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self.init(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
    }
}
