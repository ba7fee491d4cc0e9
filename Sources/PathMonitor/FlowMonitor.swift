// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Locking
import PathModel
import PathmondClient

/// Watches one connection an app holds, in the spirit of Network.framework's viability and better-path
/// handlers: pathmond says when the connection can no longer send or receive over its interface, and when a
/// better path (that the app's parameters allow) appears, so the app can migrate instead of polling.
///
/// ```swift
/// let flow = try FlowMonitor(connectedSocket: fd, parameters: PathParameters(prohibitsExpensive: true))
/// for await better in flow.betterPathUpdates where better { /* open a new connection, then move */ }
/// ```
///
/// Like `NetworkPathMonitor` it reconnects and subscribes again when the daemon restarts, and reports `.unavailable`
/// meanwhile rather than guessing.
public final class FlowMonitor: Sendable {
    /// What the monitor learns.
    public enum Update: Sendable, Hashable {
        /// The flow's status (sent on connecting, then on every change).
        case status(FlowStatus)
        /// pathmond cannot be reached; the status is unknown until it can.
        case unavailable(PathmondClientError)
    }

    /// The flow being watched.
    public let flow: Flow
    private let watch: ReconnectingWatch<FlowStatus>

    /// A monitor of `flow`; nothing happens until it is started or iterated.
    public init(
        flow: Flow, socketPath: String = PathmondConnection.defaultSocketPath, retryDelay: Duration = .milliseconds(250)
    ) {
        self.flow = flow
        watch = ReconnectingWatch(socketPath: socketPath, retryDelay: retryDelay) {
            connection, handler throws(PathmondClientError) in
            try connection.watchFlow(flow, handler)
        }
    }

    /// A monitor of the connection on a connected socket: its local and remote addresses from the kernel, and its
    /// interface from SO_BINDTODEVICE or, failing that, from the interface that holds the local address.
    ///
    /// Without SO_BINDTODEVICE this asks pathmond which interface holds the address, a blocking call of up to
    /// 10 s: call it off the main thread (or the cooperative pool) in an app that must stay responsive.
    public convenience init(
        connectedSocket descriptor: Int32, parameters: PathParameters = .unrestricted,
        socketPath: String = PathmondConnection.defaultSocketPath, retryDelay: Duration = .milliseconds(250)
    ) throws(FlowDescriptionError) {
        let flow = try ConnectedSocket.flow(of: descriptor, parameters: parameters, socketPath: socketPath)
        self.init(flow: flow, socketPath: socketPath, retryDelay: retryDelay)
    }

    /// The latest status, or nil while it is unknown.
    public var currentStatus: FlowStatus? {
        guard case .value(let status) = watch.current else { return nil }
        return status
    }

    /// Starts watching; calls `viabilityHandler` and `betterPathHandler` on `queue` when each value changes, and
    /// `unavailableHandler` when pathmond cannot be reached.
    public func start(
        queue: DispatchQueue, viabilityHandler: @escaping @Sendable (Bool) -> Void,
        betterPathHandler: @escaping @Sendable (Bool) -> Void,
        unavailableHandler: @escaping @Sendable (PathmondClientError) -> Void = { _ in }
    ) {
        let last = LastStatus()
        _ = watch.addConsumer(
            .init(
                deliver: { event in
                    queue.async {
                        switch event {
                        case .value(let status):
                            let previous = last.swap(status)
                            if previous?.isViable != status.isViable { viabilityHandler(status.isViable) }
                            if previous?.betterPathAvailable != status.betterPathAvailable {
                                betterPathHandler(status.betterPathAvailable)
                            }
                        case .unavailable(let error):
                            _ = last.swap(nil)
                            unavailableHandler(error)
                        }
                    }
                }, finish: {}))
    }

    /// Stops watching for good.
    public func cancel() {
        watch.cancel()
    }

    /// Every update, starting with the current one if known; keeps the monitor alive while iterated.
    public var updates: AsyncStream<Update> {
        watch.stream(keepingAlive: self, Update.init)
    }

    /// Viability as it changes: false when the connection can no longer send or receive (among other reasons, when
    /// the kernel now sends its packets out of another interface than its own), true when it can again.
    public var viabilityUpdates: AsyncStream<Bool> { changes(of: \.isViable) }

    /// Whether a better path is available, as it changes.
    public var betterPathUpdates: AsyncStream<Bool> { changes(of: \.betterPathAvailable) }

    private func changes(of field: KeyPath<FlowStatus, Bool> & Sendable) -> AsyncStream<Bool> {
        let updates = updates
        return AsyncStream { continuation in
            let task = Task {
                var last: Bool?
                for await update in updates {
                    guard case .status(let status) = update else {
                        last = nil
                        continue
                    }
                    if status[keyPath: field] != last { continuation.yield(status[keyPath: field]) }
                    last = status[keyPath: field]
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

extension FlowMonitor.Update {
    init(_ event: WatchEvent<FlowStatus>) {
        switch event {
        case .value(let status): self = .status(status)
        case .unavailable(let error): self = .unavailable(error)
        }
    }
}

/// The previous status a handler-based consumer saw, to call each handler only on a change of its own value.
private final class LastStatus: Sendable {
    private let status = Locked<FlowStatus?>(nil)

    func swap(_ new: FlowStatus?) -> FlowStatus? {
        status.withLock { status in
            defer { status = new }
            return status
        }
    }
}
