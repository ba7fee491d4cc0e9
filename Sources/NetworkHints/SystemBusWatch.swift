import DBus
import Dispatch

/// One connection to the system bus for the watchers that follow services on it (NetworkManager, ModemManager),
/// opened again when the bus goes away. While the bus is missing (no D-Bus here, or not started yet) it tries again
/// after 1 s, doubling to once a minute, and reports the failure once, not at every try.
///
/// @unchecked Sendable: `connection`, `retryDelay`, `hasReportedFailure` and `isStopped` are used only on `queue`,
/// which is also the connection's queue, so the watchers' state lives there too.
public final class SystemBusWatch: @unchecked Sendable {
    private let queue = DispatchQueue(label: "pathmond.dbus")
    private let address: String?
    private let watchers: [any BusServiceWatcher]
    private let onProblem: @Sendable (String) -> Void
    private var connection: BusConnection?
    private var retryDelay = SystemBusWatch.firstRetryDelay
    private var hasReportedFailure = false
    private var isStopped = false

    static let firstRetryDelay: Duration = .seconds(1)
    static let longestRetryDelay: Duration = .seconds(60)

    /// Watches through the system bus (`DBUS_SYSTEM_BUS_ADDRESS` when set), or the bus at `address`.
    public init(
        address: String? = nil, networkManager: NetworkManagerWatcher?, modemManager: ModemManagerWatcher?,
        onProblem: @escaping @Sendable (String) -> Void
    ) {
        self.address = address
        self.watchers = [networkManager as (any BusServiceWatcher)?, modemManager].compactMap { $0 }
        self.onProblem = onProblem
    }

    /// Connects and attaches the watchers, in the background.
    public func start() {
        queue.async { self.connect() }
    }

    /// Closes the connection; the watchers forget what they learnt. Waits for the queue.
    public func stop() {
        queue.sync {
            isStopped = true
            for watcher in watchers { watcher.detach() }
            connection = nil
        }
    }

    private func connect() {
        guard !isStopped else { return }
        do {
            let connection = try BusConnection(address: address, queue: queue)
            for watcher in watchers { try watcher.attach(to: connection) }
            try connection.start { [weak self] error in self?.lost(error) }
            self.connection = connection
            retryDelay = Self.firstRetryDelay
            if hasReportedFailure { onProblem("connected to the system bus") }
            hasReportedFailure = false
        } catch {
            for watcher in watchers { watcher.detach() }
            if !hasReportedFailure { onProblem("cannot use the system bus (\(error)); trying again in the background") }
            hasReportedFailure = true
            retryLater()
        }
    }

    private func lost(_ error: BusError) {
        for watcher in watchers { watcher.detach() }
        connection = nil
        onProblem("lost the system bus (\(error)); reconnecting")
        hasReportedFailure = true
        retryLater()
    }

    private func retryLater() {
        let delay = retryDelay
        retryDelay = min(retryDelay * 2, Self.longestRetryDelay)
        let (seconds, attoseconds) = delay.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in self?.connect() }
    }
}
