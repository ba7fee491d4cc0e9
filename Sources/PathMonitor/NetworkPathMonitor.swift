// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Locking
import PathModel
import PathmondClient

/// Watches the network path through pathmond, as Network.framework's NWPathMonitor does on Apple's systems: the
/// system's path, or the path for what an app may use (`PathParameters`, like NWParameters).
///
/// As NWPathMonitor is used:
/// ```swift
/// let monitor = NetworkPathMonitor()
/// monitor.pathUpdateHandler = { path in print(path.status, path.usesInterfaceType(.wifi)) }
/// monitor.start(queue: .main)
/// // later: monitor.cancel()
/// ```
/// or as an asynchronous sequence of paths:
/// ```swift
/// for await path in NetworkPathMonitor(parameters: PathParameters(prohibitsExpensive: true)) { print(path) }
/// ```
///
/// Beyond NWPathMonitor: the monitor keeps one connection to pathmond, and when the daemon stops or restarts it
/// says so (`unavailableHandler`, or `Update.unavailable` from `updates`; the path is then unknown, never
/// guessed), then reconnects and subscribes again by itself; and each monitor has parameters of its own.
public final class NetworkPathMonitor: Sendable {
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
    /// A box of its own, so that the delivery closure holds the handlers and not the monitor: a monitor dropped
    /// without `cancel()` still ends its connection.
    private let handlers = Handlers()

    private final class Handlers: Sendable {
        struct Pair {
            var path: (@Sendable (Path) -> Void)?
            var unavailable: (@Sendable (PathmondClientError) -> Void)?
        }
        let pair = Locked(Pair())
        func withLock<Result>(_ body: (inout Pair) -> Result) -> Result { pair.withLock { body(&$0) } }
    }

    /// A monitor of the path for `parameters` as pathmond at `socketPath` serves it; nothing happens until it is
    /// started or iterated.
    /// - Parameter retryDelay: how long to wait between attempts to reach the daemon.
    public init(
        parameters: PathParameters = .unrestricted, socketPath: String = PathmondConnection.defaultSocketPath,
        retryDelay: Duration = .milliseconds(250)
    ) {
        self.parameters = parameters
        watch = .path(parameters: parameters, socketPath: socketPath, retryDelay: retryDelay)
    }

    /// A monitor of the path over one kind of interface only, like NWPathMonitor(requiredInterfaceType:).
    public convenience init(
        requiredInterfaceType: InterfaceKind, socketPath: String = PathmondConnection.defaultSocketPath
    ) {
        self.init(parameters: PathParameters(requiredInterfaceKind: requiredInterfaceType), socketPath: socketPath)
    }

    /// The earlier spelling of `init(requiredInterfaceType:socketPath:)`.
    @available(*, deprecated, renamed: "init(requiredInterfaceType:socketPath:)")
    public convenience init(
        requiredInterfaceKind: InterfaceKind, socketPath: String = PathmondConnection.defaultSocketPath
    ) {
        self.init(requiredInterfaceType: requiredInterfaceKind, socketPath: socketPath)
    }

    /// The latest path, or nil while it is unknown (not connected yet, or the daemon is unreachable).
    public var currentPath: Path? {
        guard case .value(let path) = watch.current else { return nil }
        return path
    }

    /// Called on the start queue with every new path, as NWPathMonitor's is. Set it before `start(queue:)`.
    public var pathUpdateHandler: (@Sendable (Path) -> Void)? {
        get { handlers.withLock { $0.path } }
        set { handlers.withLock { $0.path = newValue } }
    }

    /// Called on the start queue when pathmond cannot be reached (the path is then unknown), with the reason.
    public var unavailableHandler: (@Sendable (PathmondClientError) -> Void)? {
        get { handlers.withLock { $0.unavailable } }
        set { handlers.withLock { $0.unavailable = newValue } }
    }

    /// Starts watching: `pathUpdateHandler` and `unavailableHandler` are called on `queue`. The handlers are read
    /// at each update, so they may be replaced while the monitor runs.
    public func start(queue: DispatchQueue) {
        let handlers = handlers
        start(queue: queue) { update in
            switch update {
            case .path(let path): handlers.withLock { $0.path }?(path)
            case .unavailable(let error): handlers.withLock { $0.unavailable }?(error)
            }
        }
    }

    /// Starts watching and calls `handler` on `queue` with every update, the path or its absence.
    public func start(queue: DispatchQueue, handler: @escaping @Sendable (Update) -> Void) {
        _ = watch.addConsumer(.init(deliver: { event in queue.async { handler(Update(event)) } }, finish: {}))
    }

    /// Stops watching for good: the connection closes and every sequence ends.
    public func cancel() {
        watch.cancel()
    }

    /// Every update, starting with the current one if known. Each use makes a new independent sequence; it keeps
    /// the monitor alive while it is iterated, so `for await u in NetworkPathMonitor().updates` works.
    public var updates: AsyncStream<Update> {
        watch.stream(keepingAlive: self, Update.init)
    }

    /// The paths only: every known path, skipping the times the daemon is unreachable. The same as iterating
    /// the monitor itself.
    public var paths: AsyncCompactMapSequence<AsyncStream<Update>, Path> {
        updates.compactMap { update in
            if case .path(let path) = update { return path }
            return nil
        }
    }
}

/// The monitor is itself a sequence of paths, as NWPathMonitor is: `for await path in monitor`.
extension NetworkPathMonitor: AsyncSequence {
    public typealias Element = Path
    public typealias Failure = Never

    /// Iterates the paths of one new subscription, skipping the times pathmond is unreachable.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var updates: AsyncStream<Update>.Iterator

        public mutating func next() async -> Path? {
            while let update = await updates.next() {
                if case .path(let path) = update { return path }
            }
            return nil
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> Path? {
            while let update = await updates.next(isolation: actor) {
                if case .path(let path) = update { return path }
            }
            return nil
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(updates: updates.makeAsyncIterator())
    }
}

extension NetworkPathMonitor.Update {
    init(_ event: WatchEvent<Path>) {
        switch event {
        case .value(let path): self = .path(path)
        case .unavailable(let error): self = .unavailable(error)
        }
    }
}

extension Path {
    /// Whether the path uses an interface of this type, as NWPath's `usesInterfaceType(_:)`: true when one of its
    /// available interfaces is of `type` (never for an unsatisfied path, which has none).
    public func usesInterfaceType(_ type: InterfaceKind) -> Bool {
        availableInterfaces.contains { $0.kind == type }
    }
}
