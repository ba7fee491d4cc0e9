// SPDX-License-Identifier: Apache-2.0
import PathModel
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One TCP connection to the server, pinned to one interface. Its socket is non-blocking: a send on a path that
/// has stopped moving must never stall the client, which has to stay free to hear about a better one.
final class TCPConnection: Sendable {
    /// The interface the connection leaves through.
    let interface: String
    /// The connection's own address and port.
    let local: SocketAddress
    /// The server's.
    let remote: SocketAddress
    /// The socket, or -1 once closed; atomic so that closing twice, from anywhere, is harmless.
    private let socket: Atomic<Int32>

    private init(descriptor: Int32, interface: String, local: SocketAddress, remote: SocketAddress) {
        socket = Atomic(descriptor)
        self.interface = interface
        self.local = local
        self.remote = remote
    }

    deinit {
        close()
    }

    /// The socket's descriptor, for `FlowMonitor(connectedSocket:)`; -1 once closed.
    var descriptor: Int32 { socket.load(ordering: .acquiring) }

    /// Connects to `remote` from `source`, out of `interface`, giving up after `timeout`.
    ///
    /// Binding the source address is not enough on its own: the kernel picks the route by destination, so without
    /// SO_BINDTODEVICE a connection from the Wi-Fi address could still leave through cellular when cellular's
    /// default route has the lower metric. SO_BINDTODEVICE confines the socket to the interface's routes; it needs
    /// CAP_NET_RAW, and without it the source address is the best the client can do.
    static func open(
        to remote: SocketAddress, via interface: String, from source: IPAddress, timeout: Duration
    ) async throws(ClientError) -> TCPConnection {
        let flags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let descriptor = Glibc.socket(remote.domain, flags, Int32(IPPROTO_TCP))
        guard descriptor >= 0 else { throw .system(operation: "socket", errno: errno) }
        do throws(ClientError) {
            try bind(descriptor, to: interface, source: source)
            try await connect(descriptor, to: remote, timeout: timeout)
            guard let local = SocketAddress.local(of: descriptor) else {
                throw .system(operation: "getsockname", errno: errno)
            }
            return TCPConnection(descriptor: descriptor, interface: interface, local: local, remote: remote)
        } catch {
            Glibc.close(descriptor)
            throw error
        }
    }

    private static func bind(_ descriptor: Int32, to interface: String, source: IPAddress) throws(ClientError) {
        let bound = interface.withCString {
            setsockopt(descriptor, SOL_SOCKET, SO_BINDTODEVICE, $0, socklen_t(strlen($0) + 1))
        }
        if bound != 0 && errno != EPERM {
            throw .system(operation: "bind to device \(interface)", errno: errno)
        }
        // Port 0: any free port, as an unbound connect would have chosen.
        let result = SocketAddress(address: source, port: 0).withSockaddr { Glibc.bind(descriptor, $0, $1) }
        guard result == 0 else { throw .system(operation: "bind to \(source)", errno: errno) }
    }

    /// A non-blocking connect: start it, wait for the socket to become writable, then read how it ended.
    private static func connect(
        _ descriptor: Int32, to remote: SocketAddress, timeout: Duration
    ) async throws(ClientError) {
        let started = remote.withSockaddr { Glibc.connect(descriptor, $0, $1) }
        if started == 0 { return }  // Connected at once, as can happen to a local address.
        guard errno == EINPROGRESS else { throw .system(operation: "connect to \(remote)", errno: errno) }
        switch await waitUntilWritable(descriptor, timeout: timeout) {
        case .writable: break
        case .timedOut: throw .timedOut(timeout)
        case .cancelled: throw .cancelled
        }
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 else {
            throw .system(operation: "getsockopt SO_ERROR", errno: errno)
        }
        guard failure == 0 else { throw .system(operation: "connect to \(remote)", errno: failure) }
    }

    /// Sends one line. Returns false when the socket's send buffer is full (the path is not moving data) and the
    /// line was dropped rather than waited for; throws when the connection is gone.
    func send(line: String) throws(ClientError) -> Bool {
        let bytes = Array((line + "\n").utf8)
        let sent = bytes.withUnsafeBytes {
            Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
        }
        if sent == bytes.count { return true }
        if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return false }
        // A line cut short would garble the stream; for lines this small it only happens as the connection dies.
        throw .system(operation: "send on the connection via \(interface)", errno: sent < 0 ? errno : EPIPE)
    }

    /// Closes the connection: the kernel still delivers what was sent, then ends it with a FIN. Idempotent.
    func close() {
        let descriptor = socket.exchange(-1, ordering: .acquiringAndReleasing)
        if descriptor >= 0 { Glibc.close(descriptor) }
    }
}
