import Logging
import NIOCore
import NIOPosix
import PathProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// Serves io.pathmond over a Unix stream socket, on one NIO event loop. The daemon starts it only once the hub
/// holds the first kernel snapshot, so no client ever sees a path made from an empty state.
///
/// Under socket activation systemd owns the listening socket (`inheritedSocket`): clients that connect before the
/// daemon is ready simply wait in its queue, and the socket outlives a restart.
final class VarlinkServer {
    private let socketPath: String
    /// The listening socket systemd passed, if any; otherwise the server binds `socketPath` itself.
    private let inheritedSocket: Int32?
    private let router: CallRouter
    private let connectionLimit: ConnectionLimit
    private let interestLimit: InterestLimit
    private let group: any EventLoopGroup
    private let logger: Logger
    private var channel: (any Channel)?

    init(
        socketPath: String, inheritedSocket: Int32?, router: CallRouter, connectionLimit: ConnectionLimit,
        interestLimit: InterestLimit, group: any EventLoopGroup, logger: Logger
    ) {
        self.interestLimit = interestLimit
        self.socketPath = socketPath
        self.inheritedSocket = inheritedSocket
        self.router = router
        self.connectionLimit = connectionLimit
        self.group = group
        self.logger = logger
    }

    /// Binds (or takes systemd's socket) and starts accepting; returns once clients can connect.
    func start() throws {
        let router = router
        let logger = logger
        let limit = connectionLimit
        let interestLimit = interestLimit
        let violations = ThrottledLog(logger: logger)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 32 * 1024, high: 256 * 1024))
            .childChannelInitializer { channel in
                // SO_PEERCRED: the uid, gid and pid the kernel recorded at connect. The uid decides the client's
                // share; read on the channel's loop, it is there at once. A socket that cannot say counts as
                // nobody's (65534), never as root's.
                Self.peerCredentials(of: channel).flatMapThrowing { credentials in
                    let userID = credentials?.userID ?? 65534
                    if let reason = limit.admit(userID: userID) {
                        try channel.pipeline.syncOperations.addHandler(
                            RefusingHandler(error: .limitReached(reason: reason)))
                        return
                    }
                    channel.closeFuture.whenComplete { _ in limit.release(userID: userID) }
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(VarlinkFrameDecoder()))
                    try channel.pipeline.syncOperations.addHandler(
                        ClientConnectionHandler(
                            router: router, logger: logger, violations: violations, credentials: credentials,
                            interestLimit: interestLimit))
                }
            }
        if let inheritedSocket {
            channel = try bootstrap.withBoundSocket(inheritedSocket).wait()
            logger.info("listening on the socket systemd passed", metadata: ["socket": "\(socketPath)"])
        } else {
            try prepareDirectory()
            try checkSocketPath()
            channel = try bootstrap.bind(unixDomainSocketPath: socketPath, cleanupExistingSocketFile: true).wait()
            // Anyone may read the path; changing policy is checked per call, not by file mode.
            chmod(socketPath, 0o666)
            logger.info("listening", metadata: ["socket": "\(socketPath)"])
        }
    }

    /// Stops accepting. systemd's socket stays: clients of the next start queue on it. A socket of our own goes.
    func stop() {
        guard let channel else { return }
        logger.info("shutting down the server")
        try? channel.close().wait()
        self.channel = nil
        if inheritedSocket == nil { unlink(socketPath) }
    }

    /// The connecting process's credentials, or nil if the socket cannot say.
    private static func peerCredentials(of channel: any Channel) -> EventLoopFuture<KernelPeerCredentials?> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        let credentials: EventLoopFuture<KernelPeerCredentials> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
        return credentials.map(Optional.some).recover { _ in nil }
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
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
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
    case alreadyServing(String)
    case notASocket(String)

    var description: String {
        switch self {
        case .cannotCreateDirectory(let path, let code):
            return "cannot create \(path): \(String(cString: strerror(code)))"
        case .alreadyServing(let path):
            return "another pathmond is already serving \(path)"
        case .notASocket(let path):
            return "\(path) exists and is not a socket; remove it or choose another --socket"
        }
    }
}
