// SPDX-License-Identifier: Apache-2.0
internal import CSystemd
import Logging
import PathProtocol
import SDEvent
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Serves io.pathmond over a Unix stream socket, on the daemon's main loop beside the netlink socket (see
/// `ClientConnection`). The daemon starts it only once the hub holds the first kernel snapshot, so no client ever
/// sees a path made from an empty state.
///
/// Under socket activation systemd owns the listening socket (`inheritedSocket`): clients that connect before the
/// daemon is ready simply wait in its queue, and the socket outlives a restart.
///
/// Sendable: the listener's state is loop-bound (checked) to the main loop's thread (`start` runs there, `stop`
/// after the loop stopped; the sources' callbacks, while it runs).
final class VarlinkServer: Sendable {
    private let socketPath: String
    /// The listening socket systemd passed, if any; otherwise the server binds `socketPath` itself.
    private let inheritedSocket: Int32?
    private let shared: ClientConnection.Shared
    private let logger: Logger
    /// The listener; touched on the main loop's thread only (or before or after it runs).
    private let state: LoopBound<State>

    private struct State {
        var listener: FileDescriptor?
        var listenerSource: SDEventSource?
        /// Accepting pauses for a moment when descriptors run out, instead of spinning on a queue it cannot take.
        var resumeAccepting: SDEventSource?
    }
    /// Connections taken per turn of the loop: a flood of connects must not starve the clients already served.
    private static let acceptsPerTurn = 64

    private var loop: SDEventLoop { shared.loop }

    /// `mainLoop` is the daemon's; `trimLoop` is where memory let go is given back (not the main loop: a trim
    /// takes milliseconds).
    init(
        socketPath: String, inheritedSocket: Int32?, router: CallRouter, connectionLimit: ConnectionLimit,
        interestLimit: InterestLimit, mainLoop: SDEventLoop, trimLoop: SDEventLoop, logger: Logger
    ) {
        self.socketPath = socketPath
        self.inheritedSocket = inheritedSocket
        self.shared = ClientConnection.Shared(
            router: router, interestLimit: interestLimit, connectionLimit: connectionLimit, loop: mainLoop,
            trimLoop: trimLoop, logger: logger)
        self.logger = logger
        self.state = LoopBound(State(), on: mainLoop)
    }

    /// Binds (or takes systemd's socket) and starts accepting; returns once clients can connect. On the main
    /// loop's thread.
    func start() throws {
        let listener: FileDescriptor
        if let inheritedSocket {
            listener = FileDescriptor(rawValue: inheritedSocket)
            _ = fcntl(inheritedSocket, F_SETFL, fcntl(inheritedSocket, F_GETFL) | O_NONBLOCK)
            logger.info("listening on the socket systemd passed", metadata: ["socket": "\(socketPath)"])
        } else {
            try prepareDirectory()
            try checkSocketPath()
            listener = try bindListener()
            logger.info("listening", metadata: ["socket": "\(socketPath)"])
        }
        state.value.listener = listener
        let source = try loop.watch(listener.rawValue, for: .readable, urgency: .background) {
            [unowned self] _ in
            acceptWaiting()
        }
        state.value.listenerSource = source
    }

    /// Stops accepting and closes every client (the main loop has stopped when this runs, on its thread).
    /// systemd's socket stays: clients of the next start queue on it. A socket of our own goes.
    func stop() {
        guard let listener = state.value.listener else { return }
        logger.info("shutting down the server")
        state.value.listenerSource?.cancel()
        state.value.resumeAccepting?.cancel()
        for connection in shared.registry.value.all { connection.close() }
        if inheritedSocket == nil {
            try? listener.close()
            unlink(socketPath)
        }
        state.value.listener = nil
    }

    private func bindListener() throws -> FileDescriptor {
        guard let address = UnixSocketAddress(path: socketPath) else {
            throw ServerError.cannotListen(socketPath, errno: ENAMETOOLONG)
        }
        let descriptor = socket(
            AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw ServerError.cannotListen(socketPath, errno: errno) }
        // checkSocketPath made sure a file here is a stale socket, not someone else's.
        unlink(socketPath)
        guard address.withSocketAddress({ bind(descriptor, $0, $1) }) == 0, listen(descriptor, 256) == 0 else {
            let code = errno
            close(descriptor)
            throw ServerError.cannotListen(socketPath, errno: code)
        }
        // Anyone may read the path; changing policy is checked per call, not by file mode.
        chmod(socketPath, 0o666)
        return FileDescriptor(rawValue: descriptor)
    }

    /// Takes the connections waiting in the listener's queue (up to a turn's worth).
    private func acceptWaiting() {
        guard let listener = state.value.listener else { return }
        for _ in 0..<Self.acceptsPerTurn {
            let descriptor = pathmond_accept_client(listener.rawValue)
            guard descriptor >= 0 else {
                switch errno {
                case EAGAIN, EWOULDBLOCK: return
                case EINTR, ECONNABORTED, EPROTO: continue
                default:
                    // EMFILE, ENFILE, ENOBUFS, ENOMEM: the queue stays; try again in a moment.
                    shared.violations.notice("cannot accept a client: \(Errno(rawValue: errno))")
                    pauseAccepting()
                    return
                }
            }
            admit(descriptor)
        }
    }

    private func pauseAccepting() {
        state.value.listenerSource?.setEnabled(false)
        let resume = try? loop.schedule(after: .milliseconds(100)) { [unowned self] in
            state.value.listenerSource?.setEnabled(true)
        }
        state.value.resumeAccepting = resume
    }

    /// Serves a new client, or tells it why not: past a limit it gets one Varlink error and is closed, a clear
    /// refusal instead of a connection that hangs.
    private func admit(_ descriptor: Int32) {
        let peer = SocketPeer.credentials(of: descriptor)
        let userID = peer?.userID ?? 65534
        if let reason = shared.connectionLimit.value.admit(userID: userID) {
            // A fresh socket's buffer takes one short error whole; what the client sent is never read.
            let bytes = VarlinkCodec().encodeError(.limitReached(reason: reason))
            _ = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
            return
        }
        do {
            let connection = try ClientConnection(
                descriptor: FileDescriptor(rawValue: descriptor), peer: peer, shared: shared)
            shared.registry.value.add(connection)
        } catch {
            logger.warning("cannot serve a client: \(error)")
            shared.connectionLimit.value.release(userID: userID)
            close(descriptor)
        }
    }

    /// Binding replaces a stale socket file; make sure it is one: not another pathmond serving clients, and not
    /// some other kind of file, which is an administrator's mistake to report, never to delete.
    private func checkSocketPath() throws {
        var status = stat()
        guard lstat(socketPath, &status) == 0 else { return }
        guard status.st_mode & S_IFMT == S_IFSOCK else { throw ServerError.notASocket(socketPath) }
        if Self.someoneListens(at: socketPath) { throw ServerError.alreadyServing(socketPath) }
    }

    /// True if a connect to the path succeeds: a live server owns it.
    private static func someoneListens(at path: String) -> Bool {
        guard let address = UnixSocketAddress(path: path) else { return false }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return address.withSocketAddress { connect(descriptor, $0, $1) } == 0
    }

    /// Creates the socket's directory if it is missing (under systemd, pathmond.socket owns it and the socket).
    private func prepareDirectory() throws {
        guard let slash = socketPath.lastIndex(of: "/"), slash != socketPath.startIndex else { return }
        let directory = String(socketPath[..<slash])
        if mkdir(directory, 0o755) != 0 && errno != EEXIST {
            throw ServerError.cannotCreateDirectory(directory, errno: errno)
        }
    }
}

/// Why the server could not start.
enum ServerError: Error, CustomStringConvertible {
    case cannotCreateDirectory(String, errno: Int32)
    case cannotListen(String, errno: Int32)
    case alreadyServing(String)
    case notASocket(String)

    var description: String {
        switch self {
        case .cannotCreateDirectory(let path, let code):
            return "cannot create \(path): \(String(cString: strerror(code)))"
        case .cannotListen(let path, let code):
            return "cannot listen on \(path): \(String(cString: strerror(code)))"
        case .alreadyServing(let path):
            return "another pathmond is already serving \(path)"
        case .notASocket(let path):
            return "\(path) exists and is not a socket; remove it or choose another --socket"
        }
    }
}
