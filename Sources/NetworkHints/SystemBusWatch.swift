// SPDX-License-Identifier: Apache-2.0
import DBus
import Glibc
import SDEvent

/// One connection to the system bus for the watchers that follow services on it (NetworkManager, ModemManager),
/// opened again when the bus goes away. While the bus is missing (no D-Bus here, or not started yet) it tries again
/// after 1 s, doubling to once a minute, and reports the failure once, not at every try.
///
/// Sendable: what changes is loop-bound (checked) to `loop`'s thread, which is also the connection's, so the
/// watchers' state lives there too.
public final class SystemBusWatch: Sendable {
    private let loop: SDEventLoop
    private let ownsLoop: Bool
    private let address: String?
    private let watchers: [any BusServiceWatcher]
    private let onProblem: @Sendable (String) -> Void
    /// What changes; touched on the loop's thread only (or before it runs).
    private let state: LoopBound<State>

    private struct State {
        var retry: SDEventSource?
        /// While the bus's socket file is missing: its directory, watched so the connection is tried when it appears
        /// (no timer waking an idle daemon on a machine without D-Bus).
        var socketAppearance: DirectoryWatcher?
        var connection: BusConnection?
        var retryDelay = SystemBusWatch.firstRetryDelay
        var hasReportedFailure = false
        var isStopped = false
    }

    static let firstRetryDelay: Duration = .seconds(1)
    static let longestRetryDelay: Duration = .seconds(60)

    /// Watches through the system bus (`DBUS_SYSTEM_BUS_ADDRESS` when set), or the bus at `address`, on `loop`
    /// (nil: a loop on a thread of its own).
    public init(
        address: String? = nil, networkManager: NetworkManagerWatcher?, modemManager: ModemManagerWatcher?,
        meteredWriter: NetworkManagerMeteredWriter? = nil, loop: SDEventLoop? = nil,
        onProblem: @escaping @Sendable (String) -> Void
    ) {
        if let loop {
            (self.loop, ownsLoop) = (loop, false)
        } else {
            // Only tests and tools come here; the daemon passes its main loop.
            do {
                (self.loop, ownsLoop) = (try SDEventLoop.startedOnNewThread(name: "pathmond-dbus"), true)
            } catch {
                fatalError("cannot start a thread for the system bus: \(error)")
            }
        }
        self.address = address
        self.watchers = [networkManager as (any BusServiceWatcher)?, modemManager, meteredWriter].compactMap { $0 }
        self.onProblem = onProblem
        state = LoopBound(State(), on: self.loop)
        for watcher in watchers { watcher.bind(to: self.loop) }
    }

    deinit {
        if ownsLoop { loop.exit() }
    }

    /// Connects and attaches the watchers, in the background.
    public func start() {
        loop.execute { self.connect() }
    }

    /// Closes the connection; the watchers forget what they learnt. Waits for the loop.
    public func stop() {
        loop.sync {
            self.state.value.isStopped = true
            for watcher in self.watchers { watcher.detach() }
            self.state.value.connection = nil
            self.state.value.retry = nil
            self.state.value.socketAppearance = nil
        }
    }

    private func connect() {
        guard !state.value.isStopped else { return }
        do {
            let connection = try BusConnection(address: address, loop: loop)
            for watcher in watchers { try watcher.attach(to: connection) }
            try connection.start { [weak self] error in self?.lost(error) }
            state.value.connection = connection
            state.value.retryDelay = Self.firstRetryDelay
            if state.value.hasReportedFailure { onProblem("connected to the system bus") }
            state.value.hasReportedFailure = false
        } catch {
            for watcher in watchers { watcher.detach() }
            if !state.value.hasReportedFailure {
                onProblem("cannot use the system bus (\(error)); trying again in the background")
            }
            state.value.hasReportedFailure = true
            retryLater()
        }
    }

    private func lost(_ error: BusError) {
        for watcher in watchers { watcher.detach() }
        state.value.connection = nil
        onProblem("lost the system bus (\(error)); reconnecting")
        state.value.hasReportedFailure = true
        retryLater()
    }

    private func retryLater() {
        if let socket = Self.socketPath(address: address), access(socket, F_OK) != 0,
            let watcher = try? DirectoryWatcher(directories: { [Self.parent(of: socket)] }, loop: loop)
        {
            // No socket: nothing will answer until it is made, and making it is an event to wait for.
            watcher.start { [weak self] in
                guard let self, access(socket, F_OK) == 0 else { return }
                state.value.socketAppearance = nil
                connect()
            }
            state.value.socketAppearance = watcher
            // It may have appeared between the failed connect and the watch.
            if access(socket, F_OK) != 0 { return }
            state.value.socketAppearance = nil
        }
        let delay = state.value.retryDelay
        state.value.retryDelay = min(delay * 2, Self.longestRetryDelay)
        let retry = try? loop.schedule(after: delay) { [weak self] in
            self?.state.value.retry = nil
            self?.connect()
        }
        state.value.retry = retry
    }

    /// The file of the bus's Unix socket: "unix:path=…" (the first such address, as sd-bus tries them), else the
    /// standard system bus socket; nil for an address of another kind (abstract sockets, TCP).
    static func socketPath(address: String?) -> String? {
        guard let address = address ?? getenv("DBUS_SYSTEM_BUS_ADDRESS").map({ String(cString: $0) }) else {
            return "/run/dbus/system_bus_socket"
        }
        for candidate in address.split(separator: ";") where candidate.hasPrefix("unix:") {
            for field in candidate.dropFirst(5).split(separator: ",") where field.hasPrefix("path=") {
                return String(field.dropFirst(5))
            }
        }
        return nil
    }

    static func parent(of path: String) -> String {
        ResolverConfigurationReader.parent(of: path)
    }
}
