// SPDX-License-Identifier: Apache-2.0
import DBus
import Synchronization

/// NetworkManager's `Metered` for every device it manages, followed through its signals, never polled: the
/// bus's NameOwnerChanged (NetworkManager starting or stopping), DeviceAdded and DeviceRemoved, and
/// PropertiesChanged on the device objects. When NetworkManager is not running there is nothing to follow and
/// nothing is asked until it starts. Only what NetworkManager itself broadcast counts (`FollowedService`): any
/// local user can send a PropertiesChanged that says Metered NO. The same signals carry each device's connectivity
/// check (Ip4Connectivity, Ip6Connectivity), which says when a captive portal holds it.
///
/// @unchecked Sendable: `service` and `devices` are used only on the connection's loop thread (every entry point is a
/// signal handler or `attach`/`detach`, all called there); what other threads read is `published`, behind a lock.
public final class NetworkManagerWatcher: BusServiceWatcher, @unchecked Sendable {
    private var service: FollowedService?
    /// By object path.
    private var devices: [String: NetworkManagerDevice] = [:]
    private let published = Mutex<[String: NetworkManagerMetered]>([:])
    private let publishedConnectivity = Mutex<[String: NetworkManagerConnectivity]>([:])
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

    func attach(to connection: BusConnection) throws(BusError) {
        let name = NetworkManagerObjects.service
        let service = FollowedService(name: name, connection: connection, report: onProblem)
        self.service = service
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
        try service.resolveOwner()
        reload()
    }

    func detach() {
        service = nil
        forgetDevices()
    }

    private func forgetDevices() {
        devices = [:]
        publish()
    }

    /// Reads every device from NetworkManager's current owner: at attach time and whenever the owner changes.
    private func reload() {
        guard let service else { return }
        devices = [:]
        guard service.owner != nil else {
            publish()  // not running: nothing to ask, and NameOwnerChanged says when it starts
            return
        }
        let body: [BusValue]
        do {
            body = try service.call(
                path: NetworkManagerObjects.rootPath,
                interface: "org.freedesktop.DBus.Properties", member: "Get",
                arguments: [NetworkManagerObjects.managerInterface, "Devices"])
        } catch {
            // Not running is the quiet, ordinary case: NameOwnerChanged says when it starts. Just started, it owns
            // its name before it exports its objects; DeviceAdded then brings each device.
            if !error.isServiceAbsent && !error.isObjectAbsent {
                onProblem("NetworkManager's device list: \(error)")
            }
            publish()
            return
        }
        guard let paths = try? NetworkManagerObjects.devicePaths(fromGetBody: body) else {
            onProblem("NetworkManager's Devices is not an array of object paths, ignoring")
            publish()
            return
        }
        for path in paths { devices[path] = readDevice(path) }
        publish()
    }

    private func readDevice(_ path: String) -> NetworkManagerDevice? {
        guard let service else { return nil }
        do {
            let body = try service.call(
                path: path, interface: "org.freedesktop.DBus.Properties", member: "GetAll",
                arguments: [NetworkManagerObjects.deviceInterface])
            guard body.count == 1, let properties = body[0].dictionaryByText,
                let device = NetworkManagerObjects.device(fromProperties: properties)
            else {
                onProblem("NetworkManager device \(path) has no Interface, ignoring")
                return nil
            }
            return device
        } catch {
            // A device removed between the list and this call is not a problem; DeviceRemoved follows.
            if !error.isServiceAbsent, case .bus = error { onProblem("NetworkManager device \(path): \(error)") }
            return nil
        }
    }

    private func deviceListChanged(_ signal: BusSignal) {
        guard signal.body.count == 1, case .objectPath(let path) = signal.body[0] else { return }
        devices[path] = signal.member == "DeviceAdded" ? readDevice(path) : nil
        publish()
    }

    private func propertiesChanged(_ signal: BusSignal) {
        guard let change = PropertiesChange(body: signal.body),
            change.interface == NetworkManagerObjects.deviceInterface
        else { return }
        let watched: Set<String> = ["Interface", "IpInterface", "Metered", "Ip4Connectivity", "Ip6Connectivity"]
        if var device = devices[signal.path], watched.isDisjoint(with: change.invalidated) {
            NetworkManagerObjects.apply(change.changed, to: &device)
            devices[signal.path] = device
        } else {
            // A device we have not read (its DeviceAdded still on the way) or a property only invalidated.
            devices[signal.path] = readDevice(signal.path)
        }
        publish()
    }

    private func publish() {
        let metered = NetworkManagerObjects.meteredByInterface(devices.values)
        let changed = published.withLock { current in
            guard current != metered else { return false }
            current = metered
            return true
        }
        let connectivity = NetworkManagerObjects.connectivityByInterface(devices.values)
        let connectivityChanged = publishedConnectivity.withLock { current in
            guard current != connectivity else { return false }
            current = connectivity
            return true
        }
        if changed || connectivityChanged { onChange() }
    }
}
