// SPDX-License-Identifier: Apache-2.0
import DBus
import SDEvent

/// Performs `MeteredWriteThrough`'s actions on NetworkManager: the device's applied connection is read
/// (Device.GetAppliedConnection) and applied again with `connection.metered` changed (Device.Reapply), which is
/// what `nmcli device modify IFACE connection.metered yes` does. The profile is never touched, neither on disk
/// nor in NetworkManager's memory (Settings.Connection.Update2 would make the profile itself say metered, and the
/// user's next `nmcli connection modify` would save that to disk); a reconnection starts from the profile again.
/// Every call is asynchronous, so the main loop never waits for NetworkManager; only `restoreAllNow`, at stop, waits.
///
/// @unchecked Sendable: what changes is loop-bound (checked) to the bus connection's loop (`attach`/`detach` and the
/// completions come there; `update` and `restoreAllNow` are called there); `report` and `onDiscountChange` are
/// called there too.
public final class NetworkManagerMeteredWriter: BusServiceWatcher, @unchecked Sendable {
    /// What happened, for the log: one sentence, the interface, and NetworkManager's value before and after.
    public struct Report: Sendable {
        public enum Kind: Sendable {
            case wrote, restored, leftAlone, failed
        }
        public var kind: Kind
        public var interface: String
        public var before: MeteredWriteThrough.SettingValue?
        public var after: MeteredWriteThrough.SettingValue?
        public var detail: String
    }

    private let bound = BusWatcherState(State())
    private let report: (Report) -> Void
    /// Called when `discounted` changed (NetworkManager's Metered must be read again without pathmond's writes).
    private let onDiscountChange: () -> Void

    private struct State {
        var connection: BusConnection?
        /// Pending retries of failed writes, by interface.
        var retries: [String: SDEventSource] = [:]
        /// Set by `restoreAllNow`: pathmond is stopping and writes nothing more.
        var isStopped = false
        var writeThrough = MeteredWriteThrough()
    }

    public init(report: @escaping (Report) -> Void, onDiscountChange: @escaping () -> Void) {
        self.report = report
        self.onDiscountChange = onDiscountChange
    }

    func bind(to loop: SDEventLoop) {
        bound.bind(to: loop)
    }

    func attach(to connection: BusConnection) throws(BusError) {
        bound.value.connection = connection
        // A refused write whose retry the lost connection cancelled (`detach`) is due now, on the next decision.
        for name in bound.value.writeThrough.failures.keys { bound.value.writeThrough.retry(name) }
    }

    func detach() {
        bound.value.connection = nil
        bound.value.retries = [:]
    }

    /// What was written and decided; on the connection's loop.
    public var state: MeteredWriteThrough { bound.value.writeThrough }

    /// Interfaces whose NetworkManager Metered is pathmond's own.
    public var discounted: Set<String> { bound.value.writeThrough.discounted }

    /// Brings NetworkManager in line with pathmond (see `MeteredWriteThrough.decide`).
    public func update(enabled: Bool, wanted: Set<String>, devices: [String: NetworkManagerMetered]) {
        guard bound.value.connection != nil, !bound.value.isStopped else { return }
        let before = bound.value.writeThrough.discounted
        let actions = bound.value.writeThrough.decide(enabled: enabled, wanted: wanted, devices: devices)
        for action in actions {
            switch action {
            case .write(let name): write(name)
            case .restore(let name, let value): restore(name, to: value)
            }
        }
        if bound.value.writeThrough.discounted != before { onDiscountChange() }
    }

    /// Gives back everything written, waiting for each answer: at stop, before the connection closes.
    public func restoreAllNow() {
        bound.value.isStopped = true
        bound.value.retries = [:]
        guard let connection = bound.value.connection else { return }
        for (name, original) in bound.value.writeThrough.writtenOriginals.sorted(by: { $0.key < $1.key }) {
            do {
                let device = try NetworkManagerApplied.devicePath(
                    from: connection.callForReply(
                        destination: NetworkManagerObjects.service, path: NetworkManagerObjects.rootPath,
                        interface: NetworkManagerObjects.managerInterface, member: "GetDeviceByIpIface",
                        arguments: [.string(name)]))
                let applied = try connection.callForReply(
                    destination: NetworkManagerObjects.service, path: device,
                    interface: NetworkManagerObjects.deviceInterface, member: "GetAppliedConnection",
                    arguments: [.uint32(0)])
                let (metered, version) = try NetworkManagerApplied.metered(in: applied)
                if metered == .yes {
                    _ = try connection.callForReply(
                        destination: NetworkManagerObjects.service, path: device,
                        interface: NetworkManagerObjects.deviceInterface, member: "Reapply",
                        arguments: Self.reapplyArguments(applied, metered: original, version: version))
                    report(
                        Report(
                            kind: .restored, interface: name, before: .yes, after: original, detail: "pathmond stops"))
                }
            } catch {
                report(Report(kind: .failed, interface: name, before: .yes, after: original, detail: "\(error)"))
            }
            bound.value.writeThrough.restored(name)
        }
    }

    private func write(_ name: String) {
        withApplied(name) { [weak self] result in
            guard let self else { return }
            switch result {
            case .failure(let error):
                bound.value.writeThrough.wrote(name, original: nil, madeChange: false)
                report(Report(kind: .failed, interface: name, before: nil, after: .yes, detail: "\(error)"))
                scheduleRetry(name)
                onDiscountChange()
            case .success(let (device, applied, metered, version)):
                guard metered == .unknown else {
                    // Set in NetworkManager itself (the profile, or `nmcli device modify`): theirs, not pathmond's.
                    bound.value.writeThrough.wrote(name, original: metered, madeChange: false)
                    report(
                        Report(
                            kind: .leftAlone, interface: name, before: metered, after: metered,
                            detail: "NetworkManager's connection says metered \(metered) itself"))
                    onDiscountChange()
                    return
                }
                reapply(device, applied, metered: .yes, version: version) { error in
                    self.bound.value.writeThrough.wrote(
                        name, original: error == nil ? .unknown : nil, madeChange: error == nil)
                    // A write that was on the way when pathmond began to stop is given back at once.
                    if self.bound.value.isStopped { self.restoreAllNow() }
                    if let error {
                        self.report(
                            Report(kind: .failed, interface: name, before: .unknown, after: .yes, detail: "\(error)"))
                        self.scheduleRetry(name)
                    } else {
                        self.report(Report(kind: .wrote, interface: name, before: .unknown, after: .yes, detail: ""))
                    }
                    self.onDiscountChange()
                }
            }
        }
    }

    /// A refused write is tried again after `MeteredWriteThrough.retries`' wait: `onDiscountChange` makes the daemon
    /// decide again with what it finds then (nothing is written if pathmond's reason has gone meanwhile).
    private func scheduleRetry(_ name: String) {
        guard let delay = bound.value.writeThrough.retryDelay(for: name) else { return }
        bound.value.retries[name] = try? bound.loop.schedule(after: delay) { [weak self] in
            guard let self else { return }
            bound.value.retries[name] = nil
            guard bound.value.connection != nil, !bound.value.isStopped else { return }
            bound.value.writeThrough.retry(name)
            onDiscountChange()
        }
    }

    private func restore(_ name: String, to original: MeteredWriteThrough.SettingValue) {
        withApplied(name) { [weak self] result in
            guard let self else { return }
            guard case .success(let (device, applied, metered, version)) = result, metered == .yes else {
                // The device is gone or says something else now: nothing of pathmond's is left to give back.
                bound.value.writeThrough.restored(name)
                onDiscountChange()
                return
            }
            reapply(device, applied, metered: original, version: version) { error in
                self.bound.value.writeThrough.restored(name)
                self.report(
                    Report(
                        kind: error == nil ? .restored : .failed, interface: name, before: .yes,
                        after: original, detail: error.map { "\($0)" } ?? ""))
                self.onDiscountChange()
            }
        }
    }

    private typealias Applied = (
        device: String, reply: BusReply, metered: MeteredWriteThrough.SettingValue, version: UInt64
    )

    /// The device of interface `name` and its applied connection, asked without waiting.
    private func withApplied(_ name: String, _ completion: @escaping (Result<Applied, BusCallError>) -> Void) {
        guard let connection = bound.value.connection else { return completion(.failure(.bus(.notConnected))) }
        do throws(BusCallError) {
            try connection.callAsync(
                destination: NetworkManagerObjects.service, path: NetworkManagerObjects.rootPath,
                interface: NetworkManagerObjects.managerInterface, member: "GetDeviceByIpIface",
                arguments: [.string(name)]
            ) { [weak self] result in
                guard let self, let connection = bound.value.connection else {
                    return completion(.failure(.bus(.notConnected)))
                }
                do throws(BusCallError) {
                    let device = try NetworkManagerApplied.devicePath(from: result.get())
                    try connection.callAsync(
                        destination: NetworkManagerObjects.service, path: device,
                        interface: NetworkManagerObjects.deviceInterface, member: "GetAppliedConnection",
                        arguments: [.uint32(0)]
                    ) { result in
                        completion(
                            Result { () throws(BusCallError) -> Applied in
                                let reply = try result.get()
                                let (metered, version) = try NetworkManagerApplied.metered(in: reply)
                                return (device, reply, metered, version)
                            })
                    }
                } catch {
                    completion(.failure(error))
                }
            }
        } catch {
            completion(.failure(error))
        }
    }

    private func reapply(
        _ device: String, _ applied: BusReply, metered: MeteredWriteThrough.SettingValue, version: UInt64,
        completion: @escaping (BusCallError?) -> Void
    ) {
        guard let connection = bound.value.connection else { return completion(.bus(.notConnected)) }
        do {
            try connection.callAsync(
                destination: NetworkManagerObjects.service, path: device,
                interface: NetworkManagerObjects.deviceInterface, member: "Reapply",
                arguments: Self.reapplyArguments(applied, metered: metered, version: version)
            ) { result in
                if case .failure(let error) = result { completion(error) } else { completion(nil) }
            }
        } catch {
            completion(error)
        }
    }

    /// Reapply(a{sa{sv}} connection, t version_id, u flags): the applied connection with `connection.metered` set;
    /// the version makes NetworkManager refuse it if the connection was applied anew meanwhile.
    private static func reapplyArguments(
        _ applied: BusReply, metered: MeteredWriteThrough.SettingValue, version: UInt64
    ) -> [BusArgument] {
        [
            .settingsCopy(applied, group: "connection", key: "metered", value: metered.rawValue), .uint64(version),
            .uint32(0),
        ]
    }
}

/// Pure decoding of the replies the writer reads.
enum NetworkManagerApplied {
    /// GetDeviceByIpIface's `o`.
    static func devicePath(from reply: BusReply) throws(BusCallError) -> String {
        let body: [BusValue]
        do { body = try reply.body() } catch { throw .bus(error) }
        guard body.count == 1, case .objectPath(let path) = body[0] else { throw .bus(.badMessage) }
        return path
    }

    /// GetAppliedConnection's `(a{sa{sv}} connection, t version_id)`: the connection's metered (unknown when
    /// absent) and the version.
    static func metered(in reply: BusReply) throws(BusCallError) -> (MeteredWriteThrough.SettingValue, UInt64) {
        let body: [BusValue]
        do { body = try reply.body() } catch { throw .bus(error) }
        guard body.count == 2, case .uint64(let version) = body[1], let settings = body[0].dictionaryByText
        else { throw .bus(.badMessage) }
        return (metered(in: settings), version)
    }

    static func metered(in settings: [String: BusValue]) -> MeteredWriteThrough.SettingValue {
        guard case .int32(let value)? = settings["connection"]?.dictionaryByText?["metered"]?.unwrapped else {
            return .unknown
        }
        return MeteredWriteThrough.SettingValue(rawValue: value) ?? .unknown
    }
}
