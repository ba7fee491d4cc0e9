// SPDX-License-Identifier: Apache-2.0
internal import CSystemd
import DaemonRuntime
import Logging
import PathModel
import PathProtocol
import SDEvent

#if canImport(Glibc)
    import Glibc
#endif

/// The dispatcher's Varlink socket (`DispatcherProtocol`): one call per connection. Every local user can connect
/// (0666): an `ExecCondition=` command of a unit with `User=` registers its run here. Who may do what is decided
/// from SO_PEERCRED and systemd (`Dispatcher+Callers.swift`), never from the socket's mode.
///
/// Any user can therefore connect, so no client can hold the loop: each connection is read and answered from the
/// loop without blocking, and closed when its call has not arrived and been answered within `Limits.deadline`. Open
/// connections are bounded per non-root uid and for all non-root uids together (beyond, a connection is closed at
/// once, unread); root's are not counted, so that no user can keep root's `pathctl` out.
final class DispatcherServer {
    /// A call as the dispatcher sees it: who asks, and the raw message.
    struct DispatcherCall {
        var peerUserID: UInt32
        var peerProcessID: Int32
        var frame: [UInt8]
    }

    /// What one client may hold.
    struct Limits {
        /// From accept to the reply's last byte.
        var deadline = Duration.seconds(2)
        /// Open connections of one non-root uid.
        var perUser = 16
        /// Open connections of all non-root uids.
        var unprivileged = 64
        /// A call is one short JSON object.
        var callSize = 16 * 1024
    }

    private let path: String
    private let loop: SDEventLoop
    private let logger: Logger
    private let limits: Limits
    private let handle: (DispatcherCall) -> [UInt8]
    private var listener: Int32 = -1
    private var source: SDEventSource?
    /// Re-enables the listener after accept ran out of descriptors.
    private var pause: SDEventSource?
    private var connections: [Int32: Connection] = [:]
    private var openByUser: [UInt32: Int] = [:]
    private let turnedAway: ThrottledLog

    init(
        path: String, loop: SDEventLoop, logger: Logger, limits: Limits = Limits(),
        handle: @escaping (DispatcherCall) -> [UInt8]
    ) {
        self.path = path
        self.loop = loop
        self.logger = logger
        self.limits = limits
        self.handle = handle
        self.turnedAway = ThrottledLog(logger: logger)
    }

    /// How many connections are open (tests).
    var openConnections: Int { connections.count }

    func start() throws {
        guard let address = UnixSocketAddress(path: path) else { throw DispatcherServerError("path too long: \(path)") }
        let descriptor = socket(
            AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw DispatcherServerError("socket: \(String(cString: strerror(errno)))") }
        unlink(path)
        // Created 0600 (the umask covers the window between bind and chmod), then opened to all.
        let previous = umask(0o177)
        let bound = address.withSocketAddress { bind(descriptor, $0, $1) }
        umask(previous)
        guard bound == 0, chmod(path, 0o666) == 0, listen(descriptor, 64) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw DispatcherServerError("cannot listen on \(path): \(reason)")
        }
        listener = descriptor
        source = try loop.watchReadable(descriptor) { [unowned self] in acceptReady() }
    }

    func stop() {
        source = nil
        pause = nil
        for descriptor in Array(connections.keys) { finish(descriptor) }
        if listener >= 0 {
            close(listener)
            unlink(path)
            listener = -1
        }
    }

    /// One connection's phase, with what that phase carries.
    private enum Phase {
        /// The call so far.
        case reading([UInt8])
        /// The reply, and how much of it has gone out.
        case writing([UInt8], sent: Int)
    }

    private final class Connection {
        let peer: PeerCredentials
        var phase = Phase.reading([])
        var source: SDEventSource?
        var deadline: SDEventSource?
        init(peer: PeerCredentials) { self.peer = peer }
    }

    /// Accepts what is queued, a bounded number per turn so that the calls of those accepted get their turns.
    private func acceptReady() {
        for _ in 0..<32 {
            let descriptor = accept4(
                listener, nil, nil, Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue))
            guard descriptor >= 0 else {
                if errno == EMFILE || errno == ENFILE { pauseAccepting() }
                return
            }
            admit(descriptor)
        }
    }

    /// Out of descriptors: the listener stays readable, so it is left alone for a moment rather than spun on.
    private func pauseAccepting() {
        turnedAway.notice(
            "out of file descriptors with \(connections.count) connections open: not accepting for 100 ms")
        source?.setEnabled(false)
        pause = try? loop.schedule(after: .milliseconds(100)) { [unowned self] in
            pause = nil
            source?.setEnabled(true)
        }
    }

    private func admit(_ descriptor: Int32) {
        guard let peer = SocketPeer.credentials(of: descriptor) else {
            close(descriptor)
            return
        }
        if peer.userID != 0 {
            let mine = openByUser[peer.userID, default: 0]
            let unprivileged = openByUser.values.reduce(0, +)
            guard mine < limits.perUser, unprivileged < limits.unprivileged else {
                turnedAway.notice(
                    "turned away a connection of uid \(peer.userID) (pid \(peer.processID)): \(mine) of its own and "
                        + "\(unprivileged) of non-root users open (at most \(limits.perUser) and \(limits.unprivileged))"
                )
                close(descriptor)
                return
            }
            openByUser[peer.userID] = mine + 1
        }
        let connection = Connection(peer: peer)
        connections[descriptor] = connection
        do {
            connection.source = try loop.watch(descriptor, for: .readable) { [unowned self] events in
                serve(descriptor, events)
            }
            connection.deadline = try loop.schedule(after: limits.deadline) { [unowned self] in
                turnedAway.notice(
                    "closed a connection of uid \(peer.userID) (pid \(peer.processID)): no call answered within "
                        + TimeSpan.format(limits.deadline))
                finish(descriptor)
            }
        } catch {
            logger.error("cannot watch a connection: \(error)")
            finish(descriptor)
        }
    }

    private func serve(_ descriptor: Int32, _ events: SDIOEvents) {
        guard let connection = connections[descriptor] else { return }
        switch connection.phase {
        case .reading(var frame):
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count < 0 && errno == EINTR { continue }
                if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
                // Gone, failed, or more than a call: closed without a reply.
                guard count > 0, frame.count + count <= limits.callSize else { return finish(descriptor) }
                frame += chunk[..<count]
                if frame.contains(0) { break }
            }
            guard let end = frame.firstIndex(of: 0) else {
                connection.phase = .reading(frame)
                return
            }
            let reply = handle(
                DispatcherCall(
                    peerUserID: connection.peer.userID, peerProcessID: connection.peer.processID,
                    frame: Array(frame[..<end])))
            connection.phase = .writing(reply, sent: 0)
            connection.source?.setIOEvents(.writable)
            write(descriptor, connection)
        case .writing:
            write(descriptor, connection)
        }
    }

    private func write(_ descriptor: Int32, _ connection: Connection) {
        guard case .writing(let reply, var sent) = connection.phase else { return }
        while sent < reply.count {
            let count = reply[sent...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                connection.phase = .writing(reply, sent: sent)
                return
            }
            // A client gone (EPIPE) loses its reply; the dispatcher goes on.
            guard count > 0 else { break }
            sent += count
        }
        finish(descriptor)
    }

    private func finish(_ descriptor: Int32) {
        guard let connection = connections.removeValue(forKey: descriptor) else { return }
        connection.source?.cancel()
        connection.deadline?.cancel()
        close(descriptor)
        let user = connection.peer.userID
        if user != 0, let open = openByUser[user] {
            openByUser[user] = open > 1 ? open - 1 : nil
        }
    }
}

struct DispatcherServerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
