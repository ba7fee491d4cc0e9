// SPDX-License-Identifier: Apache-2.0
import DBus
import Locking
import SDEvent

/// NetworkManager's `Metered` for every device it manages, followed through its signals, never polled: the
/// bus's NameOwnerChanged (NetworkManager starting or stopping), DeviceAdded and DeviceRemoved, and
/// PropertiesChanged on the device objects. When NetworkManager is not running there is nothing to follow and
/// nothing is asked until it starts. Only what NetworkManager itself broadcast counts (`FollowedService`): any
/// local user can send a PropertiesChanged that says Metered NO. The same signals carry each device's connectivity
/// check (Ip4Connectivity, Ip6Connectivity), which says when a captive portal holds it.
///
/// Sendable: what changes is loop-bound (checked) to the connection's loop (every entry point is a signal handler or
/// `attach`/`detach`, all called there); what other threads read is `published`, behind a lock.
public final class NetworkManagerWatcher: BusServiceWatcher, Sendable {
    private let state = BusWatcherState(State())

    private struct State {
        var service: FollowedService?
        /// By object path.
        var devices: [String: NetworkManagerDevice] = [:]
        /// Device reads waiting for their reply (a DeviceRemoved, a newer read or a new owner makes a reply stale).
        var pendingReads = PendingReads()
        /// Bumped by every read of the device list: a reply to an older one (an owner since replaced) is dropped.
        var listGeneration = 0
        /// Whether NetworkManager's connectivity check runs: only then do the devices' connectivity say anything.
        var connectivityCheck = NetworkManagerConnectivityCheck()
        /// Whether a read of it is on its way.
        var isReadingConnectivityCheck = false

        /// Forgets every device and makes any reply still on its way stale; the new list generation.
        mutating func forgetDevices() -> Int {
            devices = [:]
            pendingReads.dropAll()
            connectivityCheck = NetworkManagerConnectivityCheck()
            isReadingConnectivityCheck = false
            listGeneration += 1
            return listGeneration
        }
    }
    private let published = Locked<[String: NetworkManagerMetered]>([:])
    private let publishedConnectivity = Locked<[String: NetworkManagerConnectivity]>([:])
    private let publishedCheckRuns = Locked(false)
    private let onChange: @Sendable () -> Void
    private let onProblem: @Sendable (String) -> Void

    /// `onChange` is called (on the bus's loop thread) whenever `meteredInterfaces` or `connectivityByInterface`
    /// changes; `onProblem` when
    /// NetworkManager answered something unusable (never for NetworkManager not running), or a signal that did not
    /// come from NetworkManager was ignored (once a minute at most): both for the log at warning.
    public init(
        onChange: @escaping @Sendable () -> Void, onProblem: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.onChange = onChange
        self.onProblem = onProblem
    }

    /// NetworkManager's Metered by interface name, for every device it manages; empty when it is not running.
    public var meteredInterfaces: [String: NetworkManagerMetered] { published.withLock { $0 } }

    /// NetworkManager's connectivity check by interface name (PORTAL: a captive portal), for every device it
    /// checked; empty when it is not running or checks nothing.
    public var connectivityByInterface: [String: NetworkManagerConnectivity] {
        publishedConnectivity.withLock { $0 }
    }

    /// Whether NetworkManager runs its own connectivity check (enabled, with a URI): pathmond's own check
    /// (`[connectivity]`) then stays off unless configured on. False when NetworkManager is not running.
    public var connectivityCheckRuns: Bool { publishedCheckRuns.withLock { $0 } }

    func bind(to loop: SDEventLoop) {
        state.bind(to: loop)
    }

    func attach(to connection: BusConnection) throws(BusError) {
        let name = NetworkManagerObjects.service
        let service = FollowedService(name: name, connection: connection, report: onProblem)
        state.value.service = service
        // A new owner is read afresh; no owner any more: `reload` forgets every device.
        try service.followOwner { [weak self] in self?.reload() }
        for member in ["DeviceAdded", "DeviceRemoved"] {
            let rule = BusMatchRules.signal(
                sender: name, path: NetworkManagerObjects.rootPath,
                interface: NetworkManagerObjects.managerInterface, member: member)
            try service.addMatch(rule) { [weak self] signal in self?.deviceListChanged(signal) }
        }
        let properties = BusMatchRules.propertiesChanged(
            sender: name, pathNamespace: NetworkManagerObjects.devicePathPrefix,
            interface: NetworkManagerObjects.deviceInterface)
        try service.addMatch(properties) { [weak self] signal in self?.propertiesChanged(signal) }
        // The manager's own properties: whether its connectivity check runs (a privacy setting may turn it off).
        let manager = BusMatchRules.propertiesChanged(
            sender: name, pathNamespace: NetworkManagerObjects.rootPath,
            interface: NetworkManagerObjects.managerInterface)
        try service.addMatch(manager) { [weak self] signal in self?.managerPropertiesChanged(signal) }
        // Nothing is waited for: the owner's answer reads the devices, each reply updates what is published.
        try service.resolveOwner { [weak self] in self?.reload() }
    }

    func detach() {
        state.value.service = nil
        forgetDevices()
    }

    private func forgetDevices() {
        _ = withState { $0.forgetDevices() }
        publish()
    }

    /// One checked access to the state for a whole step; `body` must not call out of the watcher.
    private func withState<Result>(_ body: (inout State) -> Result) -> Result {
        body(&state.value)
    }

    /// Reads every device from NetworkManager's current owner: at attach time and whenever the owner changes. Asks
    /// for the list, then each device, without waiting; what is published follows the replies.
    private func reload() {
        guard let service = state.value.service else { return }
        let generation = withState { $0.forgetDevices() }
        guard service.owner != nil else {
            publish()  // not running: nothing to ask, and NameOwnerChanged says when it starts
            return
        }
        readConnectivityCheck(generation: generation)
        service.call(
            path: NetworkManagerObjects.rootPath, interface: "org.freedesktop.DBus.Properties", member: "Get",
            arguments: [NetworkManagerObjects.managerInterface, "Devices"]
        ) { [weak self] result in
            guard let self, generation == state.value.listGeneration else { return }
            switch result {
            case .failure(let error):
                // Not running is the quiet, ordinary case: NameOwnerChanged says when it starts. Just started, it
                // owns its name before it exports its objects; DeviceAdded then brings each device.
                if !error.isServiceAbsent && !error.isObjectAbsent {
                    onProblem("NetworkManager's device list: \(error)")
                }
                publish()
            case .success(let body):
                guard let paths = try? NetworkManagerObjects.devicePaths(fromGetBody: body) else {
                    onProblem("NetworkManager's Devices is not an array of object paths, ignoring")
                    publish()
                    return
                }
                if paths.isEmpty { publish() }
                for path in paths { readDevice(path) }
            }
        }
    }

    /// Reads whether NetworkManager's connectivity check runs; without an answer, the devices' connectivity is
    /// not believed (a made-up FULL would read as "no portal"). Just started, NetworkManager owns its name before
    /// it exports its objects: a device read afterwards asks again (`readDevice`).
    private func readConnectivityCheck(generation: Int) {
        guard let service = state.value.service, !state.value.isReadingConnectivityCheck else { return }
        state.value.isReadingConnectivityCheck = true
        service.getAll(path: NetworkManagerObjects.rootPath, interface: NetworkManagerObjects.managerInterface) {
            [weak self] result in
            guard let self, generation == state.value.listGeneration else { return }
            state.value.isReadingConnectivityCheck = false
            guard case .success(let body) = result, body.count == 1, let properties = body[0].dictionaryByText
            else { return }
            updateConnectivityCheck { $0.apply(properties) }
        }
    }

    private func managerPropertiesChanged(_ signal: BusSignal) {
        guard signal.path == NetworkManagerObjects.rootPath, let change = PropertiesChange(body: signal.body),
            change.interface == NetworkManagerObjects.managerInterface
        else { return }
        updateConnectivityCheck { $0.apply(change.changed) }
        if change.invalidated.contains(where: { $0.hasPrefix("ConnectivityCheck") }) {
            readConnectivityCheck(generation: state.value.listGeneration)
        }
    }

    private func updateConnectivityCheck(_ change: (inout NetworkManagerConnectivityCheck) -> Void) {
        let before = state.value.connectivityCheck.runs
        change(&state.value.connectivityCheck)
        if state.value.connectivityCheck.runs != before && state.value.pendingReads.isEmpty { publish() }
    }

    /// Reads one device; its reply puts it in (or, unreadable or gone, out of) the table, published once no other
    /// read is waiting, so that a whole list comes out as one change.
    private func readDevice(_ path: String) {
        guard let service = state.value.service else { return }
        let read = state.value.pendingReads.start(path)
        service.getAll(path: path, interface: NetworkManagerObjects.deviceInterface) { [weak self] result in
            guard let self, state.value.pendingReads.finish(path, read) else { return }
            let answer = device(path, from: result)
            state.value.devices[path] = answer
            if answer != nil && state.value.connectivityCheck.isEnabled == nil {
                readConnectivityCheck(generation: state.value.listGeneration)
            }
            if state.value.pendingReads.isEmpty { publish() }
        }
    }

    private func device(_ path: String, from result: Result<[BusValue], BusCallError>) -> NetworkManagerDevice? {
        switch result {
        case .success(let body):
            guard body.count == 1, let properties = body[0].dictionaryByText,
                let device = NetworkManagerObjects.device(fromProperties: properties)
            else {
                onProblem("NetworkManager device \(path) has no Interface, ignoring")
                return nil
            }
            return device
        case .failure(let error):
            // A device removed between the list and this call is not a problem; DeviceRemoved follows.
            if !error.isServiceAbsent, case .bus = error { onProblem("NetworkManager device \(path): \(error)") }
            return nil
        }
    }

    private func deviceListChanged(_ signal: BusSignal) {
        guard signal.body.count == 1, case .objectPath(let path) = signal.body[0] else { return }
        if signal.member == "DeviceAdded" {
            readDevice(path)
        } else {
            withState { state in
                state.devices[path] = nil
                state.pendingReads.drop(path)
            }
            publish()
        }
    }

    private func propertiesChanged(_ signal: BusSignal) {
        guard let change = PropertiesChange(body: signal.body),
            change.interface == NetworkManagerObjects.deviceInterface
        else { return }
        let watched: Set<String> = ["Interface", "IpInterface", "Metered", "Ip4Connectivity", "Ip6Connectivity"]
        if var device = state.value.devices[signal.path], watched.isDisjoint(with: change.invalidated) {
            NetworkManagerObjects.apply(change.changed, to: &device)
            state.value.devices[signal.path] = device
        } else {
            // A device we have not read (its DeviceAdded still on the way) or a property only invalidated: its
            // reply publishes.
            readDevice(signal.path)
            return
        }
        publish()
    }

    private func publish() {
        let devices = state.value.devices
        let metered = NetworkManagerObjects.meteredByInterface(devices.values)
        let changed = published.withLock { current in
            guard current != metered else { return false }
            current = metered
            return true
        }
        let connectivity =
            state.value.connectivityCheck.runs ? NetworkManagerObjects.connectivityByInterface(devices.values) : [:]
        let connectivityChanged = publishedConnectivity.withLock { current in
            guard current != connectivity else { return false }
            current = connectivity
            return true
        }
        let runs = state.value.service != nil && state.value.connectivityCheck.runs
        let runsChanged = publishedCheckRuns.withLock { current in
            guard current != runs else { return false }
            current = runs
            return true
        }
        if changed || connectivityChanged || runsChanged { onChange() }
    }
}
