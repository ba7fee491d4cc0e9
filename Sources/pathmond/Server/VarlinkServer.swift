import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#endif

/// Serves io.pathmond over a Unix stream socket. It binds only once the hub holds the first kernel snapshot, so
/// no client ever sees a path made from an empty state; `onListening` then runs (it sends READY=1).
struct VarlinkServer: Service {
    let socketPath: String
    let router: CallRouter
    let logger: Logger
    let onListening: @Sendable () -> Void

    func run() async throws {
        await router.hub.waitUntilReady()
        try prepareDirectory()
        let router = router
        let logger = logger
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 32 * 1024, high: 256 * 1024))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(VarlinkFrameDecoder()))
                    try channel.pipeline.syncOperations.addHandler(
                        ClientConnectionHandler(router: router, logger: logger))
                }
            }
        let channel = try await bootstrap.bind(unixDomainSocketPath: socketPath, cleanupExistingSocketFile: true).get()
        // Anyone may read the path; changing policy is checked per call, not by file mode.
        chmod(socketPath, 0o666)
        logger.info("listening", metadata: ["socket": "\(socketPath)"])
        onListening()
        try? await gracefulShutdown()
        logger.info("shutting down the server")
        try? await channel.close()
        unlink(socketPath)
    }

    /// Creates the socket's directory if it is missing (systemd's RuntimeDirectory= makes it in production).
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

    var description: String {
        switch self {
        case .cannotCreateDirectory(let path, let code):
            return "cannot create \(path): \(String(cString: strerror(code)))"
        }
    }
}
