import Dispatch
import PathModel

/// Watches the network path through pathmond, in the spirit of Network.framework's NWPathMonitor: the system's
/// path, or the path for what an app may use (`PathParameters`, like NWParameters).
///
/// Use the updates as an asynchronous sequence:
/// ```swift
/// let monitor = PathMonitor(parameters: PathParameters(prohibitsExpensive: true))
/// for await path in monitor.paths { print(path.status) }
/// ```
/// or with a handler: `monitor.start(queue: .main) { update in ... }`, and `monitor.cancel()` to stop.
///
/// The monitor keeps one connection to pathmond. When the daemon stops or restarts it reports `.unavailable`
/// (the path is then unknown, never guessed) and reconnects and subscribes again by itself.
public final class PathMonitor: Sendable {
    /// What the monitor learns.
    public enum Update: Sendable, Hashable {
        /// The current path (sent on connecting, then on every change).
        case path(Path)
        /// pathmond cannot be reached; the path is unknown until it can. Carries the reason.
        case unavailable(PathmondClientError)
    }

    /// What this monitor watches the path for.
    public let parameters: PathParameters
    private let watch: ReconnectingWatch<Path>

    /// A monitor of the path for `parameters` as pathmond at `socketPath` serves it; nothing happens until it is
    /// started or iterated.
    /// - Parameter retryDelay: how long to wait between attempts to reach the daemon.
    public init(
        parameters: PathParameters = .unrestricted, socketPath: String = PathmondConnection.defaultSocketPath,
        retryDelay: Duration = .milliseconds(250)
    ) {
        self.parameters = parameters
        watch = ReconnectingWatch(socketPath: socketPath, retryDelay: retryDelay) {
            connection, handler throws(PathmondClientError) in
            try connection.watchPath(parameters: parameters, handler)
        }
    }

    /// A monitor of the path over one kind of interface only, like NWPathMonitor(requiredInterfaceType:).
    public convenience init(
        requiredInterfaceKind: InterfaceKind, socketPath: String = PathmondConnection.defaultSocketPath
    ) {
        self.init(parameters: PathParameters(requiredInterfaceKind: requiredInterfaceKind), socketPath: socketPath)
    }

    /// The latest path, or nil while it is unknown (not connected yet, or the daemon is unreachable).
    public var currentPath: Path? {
        guard case .value(let path) = watch.current else { return nil }
        return path
    }

    /// Starts watching and calls `handler` on `queue` with every update.
    public func start(queue: DispatchQueue, handler: @escaping @Sendable (Update) -> Void) {
        _ = watch.addConsumer(.init(deliver: { event in queue.async { handler(Update(event)) } }, finish: {}))
    }

    /// Stops watching for good: the connection closes and every sequence ends.
    public func cancel() {
        watch.cancel()
    }

    /// Every update, starting with the current one if known. Each use makes a new independent sequence; it keeps
    /// the monitor alive while it is iterated, so `for await p in PathMonitor().paths` works.
    public var updates: AsyncStream<Update> {
        watch.stream(keepingAlive: self, Update.init)
    }

    /// The paths only: every known path, skipping the times the daemon is unreachable.
    public var paths: AsyncCompactMapSequence<AsyncStream<Update>, Path> {
        updates.compactMap { update in
            if case .path(let path) = update { return path }
            return nil
        }
    }
}

extension PathMonitor.Update {
    init(_ event: WatchEvent<Path>) {
        switch event {
        case .value(let path): self = .path(path)
        case .unavailable(let error): self = .unavailable(error)
        }
    }
}
