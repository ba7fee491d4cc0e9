// SPDX-License-Identifier: Apache-2.0
internal import CSystemd
import Logging
import PathProtocol
import SDEvent
import StateFiles
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// The dispatcher's root-only Varlink socket (`DispatcherProtocol`): one call per connection, answered at once on
/// the loop. Only uid 0 is served: the socket is 0600 in a 0700 directory, and SO_PEERCRED is checked again. The
/// unit a deferral belongs to is the caller's own, from the cgroup of the process at the other end of the socket.
///
/// Blocking reads with a two-second timeout: only root can connect, and a call is one short JSON line.
final class DispatcherServer {
    private let path: String
    private let loop: SDEventLoop
    private let logger: Logger
    private let handle: (DispatcherCall) -> [UInt8]
    private var listener: Int32 = -1
    private var source: SDEventSource?

    /// A call as the dispatcher sees it: who asks, and the raw message.
    struct DispatcherCall {
        var peerUserID: UInt32
        var peerProcessID: Int32
        var frame: [UInt8]
    }

    init(path: String, loop: SDEventLoop, logger: Logger, handle: @escaping (DispatcherCall) -> [UInt8]) {
        self.path = path
        self.loop = loop
        self.logger = logger
        self.handle = handle
    }

    func start() throws {
        guard let address = UnixSocketAddress(path: path) else { throw DispatcherServerError("path too long: \(path)") }
        let descriptor = socket(
            AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw DispatcherServerError("socket: \(String(cString: strerror(errno)))") }
        unlink(path)
        // Created 0600 whatever happens between bind and chmod: the umask covers the window.
        let previous = umask(0o177)
        let bound = address.withSocketAddress { bind(descriptor, $0, $1) }
        umask(previous)
        guard bound == 0, chmod(path, 0o600) == 0, listen(descriptor, 16) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw DispatcherServerError("cannot listen on \(path): \(reason)")
        }
        listener = descriptor
        source = try loop.watchReadable(descriptor) { [unowned self] in acceptOne() }
    }

    func stop() {
        source = nil
        if listener >= 0 {
            close(listener)
            unlink(path)
            listener = -1
        }
    }

    private func acceptOne() {
        let connection = accept4(listener, nil, nil, Int32(SOCK_CLOEXEC.rawValue))
        guard connection >= 0 else { return }
        defer { close(connection) }
        var limit = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard let peer = SocketPeer.credentials(of: connection) else { return }
        var frame: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !frame.contains(0) {
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0, frame.count + count <= VarlinkCodec.maximumMessageSize else { return }
            frame += chunk[..<count]
        }
        let reply = handle(
            DispatcherCall(
                peerUserID: peer.userID, peerProcessID: peer.processID, frame: Array(frame.prefix { $0 != 0 })))
        // A client gone (EPIPE) or stalled past SO_SNDTIMEO loses its reply; the dispatcher goes on.
        try? StateFileWriter.writeAll(reply, to: FileDescriptor(rawValue: connection))
    }

    /// The systemd unit the process belongs to (sd_pid_get_unit: from its cgroup, which it cannot leave), e.g.
    /// "apt-daily.service"; nil for a process in no system unit.
    static func unit(ofProcess processID: Int32) -> String? {
        var name: UnsafeMutablePointer<CChar>?
        guard sd_pid_get_unit(processID, &name) >= 0, let name else { return nil }
        defer { free(name) }
        return String(cString: name)
    }
}

struct DispatcherServerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
