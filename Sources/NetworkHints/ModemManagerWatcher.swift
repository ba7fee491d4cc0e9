// SPDX-License-Identifier: Apache-2.0
import DBus
import Locking
import SDEvent

/// The SIM behind each modem's network interface, from ModemManager, followed through its signals rather than asked
/// again and again: the bus's NameOwnerChanged (ModemManager starting or stopping), the ObjectManager's
/// InterfacesAdded and InterfacesRemoved (modems coming and going), and PropertiesChanged on modems (ports, SIM
/// swapped) and SIMs (ICCID and IMSI read once the SIM is unlocked). Identifiers stay in memory, in this object;
/// the daemon keys them at once with `SubscriberKeyer`. Only what ModemManager itself broadcast counts
/// (`FollowedService`): any local user can send a PropertiesChanged naming another SIM. The same signals carry each
/// modem's radio (`radios()`): the Modem3gpp interface's RegistrationState (roaming), and the modem's
/// AccessTechnologies and SignalQuality.
///
/// Sendable: what changes is loop-bound (checked) to the connection's loop (signal handlers, `attach`, `detach`);
/// other threads read `published`, behind a lock.
public final class ModemManagerWatcher: BusServiceWatcher, CellularIdentitySource, Sendable {
    private let state = BusWatcherState(State())

    private struct State {
        var service: FollowedService?
        var modems: [String: ModemRecord] = [:]
        var sims: [String: SimRecord] = [:]
        var isRunning = false
        /// SIM reads waiting for their reply, by object path, each with its number (a newer read of the path, a new
        /// owner or a detach drops the older one's reply). Nothing is published while one waits: a modem's network
        /// is keyed by its SIM, and publishing the hardware identity first would flip the network's identity for a
        /// moment.
        var pendingSims = PendingReads()
        /// Bumped by every read of the managed objects: a reply to an older one (an owner since replaced) is
        /// dropped.
        var listGeneration = 0

        /// Forgets every modem and SIM and makes any reply still on its way stale; the new list generation.
        mutating func forgetModems() -> Int {
            modems = [:]
            sims = [:]
            pendingSims.dropAll()
            listGeneration += 1
            return listGeneration
        }

        /// Drops the SIMs no modem uses any more, and their reads.
        mutating func dropUnusedSims() {
            let used = Set(modems.values.compactMap(\.simPath))
            sims = sims.filter { used.contains($0.key) }
            pendingSims.keep(only: used)
        }
    }
    private let published = Locked<Snapshot>(Snapshot())
    private let onChange: @Sendable () -> Void
    private let onProblem: @Sendable (String) -> Void

    /// What other threads see: whether the bus and ModemManager are there, and the subscriber of each port.
    private struct Snapshot: Equatable {
        var isAttached = false
        var isRunning = false
        var subscribers: [String: CellularSubscriber] = [:]
        var radios: [String: CellularRadio] = [:]
    }

    /// `onChange` is called (on the bus's loop thread) whenever what `subscribers(forInterfaces:)` answers changes;
    /// `onProblem` when a signal that did not come from ModemManager was ignored (once a minute at most), for the log
    /// at warning.
    public init(
        onChange: @escaping @Sendable () -> Void, onProblem: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.onChange = onChange
        self.onProblem = onProblem
    }

    /// From memory, without a bus call: `noBus` while no system bus is connected, `serviceNotRunning` while
    /// ModemManager is not on it.
    public func subscribers(forInterfaces interfaces: [String]) throws(CellularIdentityUnavailable)
        -> [String: CellularSubscriber]
    {
        let snapshot = published.withLock { $0 }
        guard snapshot.isAttached else { throw .noBus("not connected to the system bus") }
        guard snapshot.isRunning else { throw .serviceNotRunning }
        return snapshot.subscribers.filter { interfaces.contains($0.key) }
    }

    /// The radio of each modem's network port (roaming, access technology, signal), from memory; empty while no bus
    /// or no ModemManager.
    public func radios() -> [String: CellularRadio] {
        published.withLock { $0.radios }
    }

    func bind(to loop: SDEventLoop) {
        state.bind(to: loop)
    }

    func attach(to connection: BusConnection) throws(BusError) {
        let name = ModemManagerObjects.service
        let service = FollowedService(name: name, connection: connection, report: onProblem)
        state.value.service = service
        // A new owner is read afresh; no owner any more: `reload` forgets every modem.
        try service.followOwner { [weak self] in self?.reload() }
        for member in ["InterfacesAdded", "InterfacesRemoved"] {
            let rule = BusMatchRules.signal(
                sender: name, path: ModemManagerObjects.rootPath,
                interface: ModemManagerObjects.objectManagerInterface, member: member)
            try service.addMatch(rule) { [weak self] signal in self?.objectsChanged(signal) }
        }
        let properties = BusMatchRules.propertiesChanged(
            sender: name, pathNamespace: ModemManagerObjects.rootPath, interface: nil)
        try service.addMatch(properties) { [weak self] signal in self?.propertiesChanged(signal) }
        // Nothing is waited for: the owner's answer reads the modems, each reply updates what is published.
        try service.resolveOwner { [weak self] in self?.reload() }
    }

    func detach() {
        state.value.service = nil
        forgetModems()
    }

    private func forgetModems() {
        withState { state in
            _ = state.forgetModems()
            state.isRunning = false
        }
        publish()
    }

    /// One checked access to the state for a whole step; `body` must not call out of the watcher.
    private func withState<Result>(_ body: (inout State) -> Result) -> Result {
        body(&state.value)
    }

    /// Reads every modem from ModemManager's current owner: at attach time and whenever the owner changes. Asks
    /// without waiting; the reply, then the SIMs' replies, make what is published.
    private func reload() {
        guard let service = state.value.service else { return }
        let generation = withState { $0.forgetModems() }
        service.call(
            path: ModemManagerObjects.rootPath, interface: ModemManagerObjects.objectManagerInterface,
            member: "GetManagedObjects"
        ) { [weak self] result in
            guard let self, generation == state.value.listGeneration else { return }
            let simPaths = withState { state in
                switch result {
                case .success(let body):
                    state.isRunning = true
                    for modem in (try? ModemManagerObjects.modems(fromBody: body)) ?? [] {
                        state.modems[modem.path] = modem
                    }
                case .failure:
                    // Not running (ServiceUnknown) or not answering: either way nothing to key by; NameOwnerChanged
                    // says when it (re)starts.
                    state.isRunning = false
                }
                return Set(state.modems.values.compactMap(\.simPath))
            }
            for simPath in simPaths { readSim(simPath) }
            publish()
        }
    }

    /// Reads a SIM; its reply (if still the latest read of it) fills it in, or, unreadable (locked, being swapped),
    /// leaves the modem's hardware identity; then publishes, once no other SIM read waits.
    private func readSim(_ path: String) {
        guard let service = state.value.service else { return }
        let read = state.value.pendingSims.start(path)
        service.getAll(path: path, interface: ModemManagerObjects.simInterface) { [weak self] result in
            guard let self, state.value.pendingSims.finish(path, read) else { return }
            var sim: SimRecord?
            if case .success(let body) = result, body.count == 1, let properties = body[0].dictionaryByText {
                var record = SimRecord()
                ModemManagerObjects.apply(properties, to: &record)
                sim = record
            }
            withState { state in
                state.sims[path] = sim
                state.dropUnusedSims()
            }
            publish()
        }
    }

    private func objectsChanged(_ signal: BusSignal) {
        guard signal.body.count == 2, case .objectPath(let path) = signal.body[0] else { return }
        if signal.member == "InterfacesAdded" {
            guard let interfaces = signal.body[1].dictionaryByText else { return }
            if let modem = ModemManagerObjects.modem(path: path, interfaces: interfaces) {
                state.value.modems[path] = modem
                if let simPath = modem.simPath { readSim(simPath) }
            }
        } else if signal.body[1].texts?.contains(ModemManagerObjects.modemInterface) == true {
            state.value.modems[path] = nil
        }
        state.value.dropUnusedSims()
        publish()
    }

    private func propertiesChanged(_ signal: BusSignal) {
        guard let change = PropertiesChange(body: signal.body) else { return }
        switch change.interface {
        case ModemManagerObjects.modemInterface:
            guard var modem = state.value.modems[signal.path] else { return }
            let oldSim = modem.simPath
            ModemManagerObjects.apply(change.changed, to: &modem)
            state.value.modems[signal.path] = modem
            if let simPath = modem.simPath, simPath != oldSim || change.invalidated.contains("Sim") {
                readSim(simPath)
            }
            state.value.dropUnusedSims()
        case ModemManagerObjects.modem3gppInterface:
            guard var modem = state.value.modems[signal.path] else { return }
            ModemManagerObjects.apply3gpp(change.changed, to: &modem)
            state.value.modems[signal.path] = modem
        case ModemManagerObjects.simInterface:
            guard var sim = state.value.sims[signal.path] else {
                // A SIM of one of our modems that could not be read before (locked): read it now.
                if state.value.modems.values.contains(where: { $0.simPath == signal.path }) { readSim(signal.path) }
                break
            }
            ModemManagerObjects.apply(change.changed, to: &sim)
            state.value.sims[signal.path] = sim
        default:
            return
        }
        publish()
    }

    /// Publishes what the modems and SIMs say now, unless a SIM read waits (its reply publishes).
    private func publish() {
        let known = state.value
        guard known.pendingSims.isEmpty else { return }
        var subscribers: [String: CellularSubscriber] = [:]
        var radios: [String: CellularRadio] = [:]
        for modem in known.modems.values {
            for port in modem.networkPorts { radios[port] = modem.radio }
            let sim = modem.simPath.flatMap { known.sims[$0] }
            let subscriber = CellularSubscriber(
                iccid: sim?.iccid, imsi: sim?.imsi, hardwareIdentity: modem.equipmentIdentifier.map { "imei:" + $0 })
            for port in modem.networkPorts { subscribers[port] = subscriber }
        }
        let snapshot = Snapshot(
            isAttached: known.service != nil, isRunning: known.isRunning, subscribers: subscribers, radios: radios)
        let changed = published.withLock { current in
            guard current != snapshot else { return false }
            current = snapshot
            return true
        }
        if changed { onChange() }
    }
}
