// SPDX-License-Identifier: Apache-2.0
import DBus
import Locking
import Testing

@testable import NetworkHints

/// Issue 22, item 1: on a bus with Debian's system-bus policy, where any user may send any signal, `nobody` forges
/// NetworkManager's and ModemManager's signals (PropertiesChanged, DeviceRemoved, InterfacesAdded/Removed, the bus's
/// NameOwnerChanged), each addressed to the watcher's connection and as a broadcast. Nothing changes, the refusal is
/// reported once (not once per signal), and what the real owner says next still counts.
@Suite(.serialized, .enabled(if: canForgeAsNobody)) struct BusForgeryTests {
    @Test func forgedNetworkManagerSignalsChangeNothing() async throws {
        let (bus, networkManager) = try Self.systemBus(with: "networkmanager", "add wwan0 1")
        defer { bus.stop() }
        defer { networkManager.stop() }
        let box = WatcherBox<NetworkManagerWatcher>()
        let published = Published { box.watcher?.meteredInterfaces ?? [:] }
        let problems = ProblemLog()
        let watcher = NetworkManagerWatcher(onChange: published.record, onProblem: problems.append)
        box.watcher = watcher
        let watch = Self.watch(bus, networkManager: watcher, problems: problems)
        defer { watch.stop() }
        #expect(await published.changes.until { $0 == ["wwan0": .yes] } != nil)
        #expect(await published.recorded(["wwan0": .yes]))

        let before = published.values.count
        let forger = try forgeSignalsAsNobody("networkmanager", bus: bus, rounds: 20)
        // NetworkManager's own signal reaches the watcher after every forged one (the forger's last round trip).
        try networkManager.send("metered wwan0 4")
        #expect(await published.changes.until { $0 == ["wwan0": .guessNo] } != nil, "\(forger)")
        #expect(await published.recorded(["wwan0": .guessNo]))
        #expect(Array(published.values.dropFirst(before)) == [["wwan0": .guessNo]])
        let refusals = problems.entries.filter { $0.hasPrefix("ignoring ") }
        #expect(refusals.count == 1, "one line a minute at most: \(refusals)")
        // The first forgery: the bus's NameOwnerChanged, from the forger, to this connection alone.
        #expect(refusals.first?.contains("ignoring NameOwnerChanged on /org/freedesktop/DBus from :1.") == true)

        // The bus's own NameOwnerChanged still counts: NetworkManager stops, its devices are forgotten.
        networkManager.stop()
        #expect(await published.changes.until { $0.isEmpty } != nil)
    }

    @Test func forgedModemManagerSignalsChangeNothing() async throws {
        let (bus, modemManager) = try Self.systemBus(
            with: "modemmanager", "modem wwan0 356938035643809 8944110068256270054 262011234567890")
        defer { bus.stop() }
        defer { modemManager.stop() }
        let box = WatcherBox<ModemManagerWatcher>()
        let published = Published { () -> [String: CellularSubscriber]? in
            try? box.watcher?.subscribers(forInterfaces: ["wwan0"])
        }
        let problems = ProblemLog()
        let watcher = ModemManagerWatcher(onChange: published.record, onProblem: problems.append)
        box.watcher = watcher
        let watch = Self.watch(bus, modemManager: watcher, problems: problems)
        defer { watch.stop() }
        let first = CellularSubscriber(
            iccid: "8944110068256270054", imsi: "262011234567890", hardwareIdentity: "imei:356938035643809")
        #expect(await published.changes.until { $0 == ["wwan0": first] } != nil)
        #expect(await published.recorded(["wwan0": first]))

        let before = published.values.count
        let forger = try forgeSignalsAsNobody("modemmanager", bus: bus, rounds: 20)
        try modemManager.send("simread wwan0 8944110068256270070 262010000000000")
        let second = CellularSubscriber(
            iccid: "8944110068256270070", imsi: "262010000000000", hardwareIdentity: "imei:356938035643809")
        #expect(await published.changes.until { $0 == ["wwan0": second] } != nil, "\(forger)")
        #expect(await published.recorded(["wwan0": second]))
        #expect(Array(published.values.dropFirst(before)) == [["wwan0": second]])
        let refusals = problems.entries.filter { $0.hasPrefix("ignoring ") }
        #expect(refusals.count == 1, "one line a minute at most: \(refusals)")
        #expect(refusals.first?.contains("ignoring NameOwnerChanged on /org/freedesktop/DBus from :1.") == true)
        // Identifiers stay out of the log: the line names the signal and its sender, never its body.
        #expect(!problems.entries.contains { $0.contains("8949000000000000666") || $0.contains("001010000000666") })
    }

    /// A bus with the system policy, and a stand-in of `kind` owning its name there (as root) after `command`.
    private static func systemBus(with kind: String, _ command: String) throws -> (PrivateBus, StandIn) {
        let bus = try PrivateBus(policy: .system)
        do {
            let standIn = try StandIn(kind, bus: bus)
            try standIn.send(command)
            return (bus, standIn)
        } catch {
            bus.stop()
            throw error
        }
    }

    /// A started watch of the watchers given, reporting to `problems`.
    private static func watch(
        _ bus: PrivateBus, networkManager: NetworkManagerWatcher? = nil, modemManager: ModemManagerWatcher? = nil,
        problems: ProblemLog
    ) -> SystemBusWatch {
        let watch = SystemBusWatch(
            address: bus.address, networkManager: networkManager, modemManager: modemManager,
            onProblem: problems.append)
        watch.start()
        return watch
    }
}

/// Every value a watcher published, in order, and the stream `Changes` waits on.
final class Published<Value: Sendable & Equatable>: Sendable {
    let changes: Changes<Value>
    private let stored = Locked<[Value]>([])

    init(_ read: @escaping @Sendable () -> Value) {
        changes = Changes(read)
    }

    /// For the watcher's `onChange`, which runs on the bus's loop thread right after the value changed.
    var record: @Sendable () -> Void {
        { [self] in
            let value = changes.read()
            stored.withLock { $0.append(value) }
            changes.continuation.yield()
        }
    }

    var values: [Value] { stored.withLock { $0 } }

    /// Waits (5 s at most) until `value` is the last one recorded: `changes.until` reads the watcher's state, which
    /// can show a change a moment before its onChange, on the bus's thread, has recorded it.
    func recorded(_ value: Value) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(5)
        while values.last != value {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return true
    }
}
