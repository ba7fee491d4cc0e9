// SPDX-License-Identifier: Apache-2.0
import DBus
import Locking
import Testing

@testable import NetworkHints

/// NetworkManager's documented D-Bus interface, served by the Python stand-in on a private dbus-daemon: the
/// watcher reads the devices at start, then follows Metered, DeviceAdded, DeviceRemoved and NetworkManager
/// stopping and starting, all through signals.
@Suite(.serialized, .enabled(if: canRunBusTests)) struct NetworkManagerWatcherTests {
    @Test func followsMeteredDevicesAndNetworkManagerRestarting() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        var networkManager = try StandIn("networkmanager", bus: bus)
        try networkManager.send("add eth0 3")
        try networkManager.send("add wlan0 2")
        try networkManager.send("add ttyUSB2 1 wwan0")

        let (watcher, changes) = makeWatcher()
        let (watch, problems) = startWatch(bus: bus, watcher: watcher)
        defer { watch.stop() }

        // Read at start: GUESS_YES and YES are metered, NO is not; a modem speaks for its data interface too.
        let initial = await changes.until { $0.count == 4 }
        #expect(initial == ["eth0": .guessYes, "wlan0": .no, "ttyUSB2": .yes, "wwan0": .yes])
        #expect(initial?["eth0"]?.isMetered == true)
        #expect(initial?["wlan0"]?.isMetered == false)

        // The user marks Wi-Fi metered in GNOME Settings: PropertiesChanged(Metered).
        try networkManager.send("metered wlan0 1")
        let sent = ContinuousClock.now
        #expect(await changes.until { $0["wlan0"] == .yes } != nil)
        // Reported, not asserted: the signal already sat in the bus daemon when `send` returned.
        print("Metered signal at the bus → watcher published: \(ContinuousClock.now - sent)")
        try networkManager.send("metered eth0 4")
        #expect(await changes.until { $0["eth0"] == .guessNo } != nil)

        try networkManager.send("add usb0 3")
        #expect(await changes.until { $0["usb0"] == .guessYes } != nil)
        try networkManager.send("remove usb0")
        #expect(await changes.until { $0["usb0"] == nil } != nil)

        // NetworkManager stops: NameOwnerChanged, and nothing it said counts any more.
        networkManager.stop()
        #expect(await changes.until { $0.isEmpty } != nil)

        // It starts again with other devices: read afresh.
        networkManager = try StandIn("networkmanager", bus: bus)
        defer { networkManager.stop() }
        try networkManager.send("add eth1 1")
        #expect(await changes.until { $0 == ["eth1": .yes] } != nil)
        #expect(problems.entries.isEmpty)
    }

    /// No NetworkManager on the bus: nothing published, nothing reported, and it is picked up when it appears.
    @Test func absentNetworkManagerIsQuiet() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let (watcher, changes) = makeWatcher()
        let (watch, problems) = startWatch(bus: bus, watcher: watcher)
        defer { watch.stop() }
        let networkManager = try StandIn("networkmanager", bus: bus)
        defer { networkManager.stop() }
        try networkManager.send("add eth0 1")
        #expect(await changes.until { $0 == ["eth0": .yes] } != nil)
        #expect(problems.entries.isEmpty)
    }

    /// No bus at all: one report, not one per retry.
    /// No bus (its socket file missing): reported once, and joined as soon as the bus makes its socket. The
    /// watch waits for the file through inotify, not a timer: the bus made at 3.2 s is joined at once, where
    /// retries after 1, 2, 4 s... would have come at 7 s; and an idle daemon without D-Bus never wakes up.
    @Test func missingBusIsReportedOnceAndJoinedWhenItAppears() async throws {
        let directory = makeTemporaryDirectory()
        let (watcher, changes) = makeWatcher()
        let problems = ProblemLog()
        let watch = SystemBusWatch(
            address: "unix:path=\(directory)/bus", networkManager: watcher, modemManager: nil,
            onProblem: problems.append)
        watch.start()
        defer { watch.stop() }
        try await Task.sleep(for: .milliseconds(3_200))
        #expect(problems.entries.count == 1)
        #expect(problems.entries.first?.contains("cannot use the system bus") == true)
        #expect(watcher.meteredInterfaces.isEmpty)

        let bus = try PrivateBus(directory: directory)
        defer { bus.stop() }
        let networkManager = try StandIn("networkmanager", bus: bus)
        defer { networkManager.stop() }
        try networkManager.send("add eth0 1")
        let appeared = ContinuousClock.now
        #expect(await changes.until { $0["eth0"] == .yes } != nil)
        #expect(ContinuousClock.now - appeared < .milliseconds(2_500), "joined by the socket's appearance")
        // Said once the watchers are attached, which may be just after their first answer was published.
        var waited = 0
        while problems.entries.last != "connected to the system bus" && waited < 200 {
            try await Task.sleep(for: .milliseconds(10))
            waited += 1
        }
        #expect(problems.entries.last == "connected to the system bus")
    }

    /// The socket file of a D-Bus address, whose appearance the watch waits for.
    @Test func socketPathOfAddresses() {
        #expect(
            SystemBusWatch.socketPath(address: "unix:path=/run/dbus/system_bus_socket") == "/run/dbus/system_bus_socket"
        )
        #expect(SystemBusWatch.socketPath(address: "unix:path=/tmp/b,guid=1234") == "/tmp/b")
        #expect(SystemBusWatch.socketPath(address: "tcp:host=x;unix:path=/tmp/c") == "/tmp/c")
        #expect(SystemBusWatch.socketPath(address: "unix:abstract=/tmp/d") == nil)
    }

    /// A started watch of `watcher` on the private bus, and the problems it reports.
    private func startWatch(bus: PrivateBus, watcher: NetworkManagerWatcher) -> (SystemBusWatch, ProblemLog) {
        let problems = ProblemLog()
        let watch = SystemBusWatch(
            address: bus.address, networkManager: watcher, modemManager: nil, onProblem: problems.append)
        watch.start()
        return (watch, problems)
    }

    private func makeWatcher() -> (NetworkManagerWatcher, Changes<[String: NetworkManagerMetered]>) {
        let box = WatcherBox<NetworkManagerWatcher>()
        let changes = Changes { box.watcher?.meteredInterfaces ?? [:] }
        let watcher = NetworkManagerWatcher(onChange: { changes.continuation.yield() })
        box.watcher = watcher
        return (watcher, changes)
    }
}

/// Lets the change callback find the watcher it was given to.
final class WatcherBox<Watcher: AnyObject & Sendable>: @unchecked Sendable {
    // @unchecked: set once, before the watcher starts, and only read after.
    weak var watcher: Watcher?
}

/// What a watch reported, in order.
final class ProblemLog: Sendable {
    private let stored = Locked<[String]>([])

    var append: @Sendable (String) -> Void {
        { [self] problem in stored.withLock { $0.append(problem) } }
    }

    var entries: [String] { stored.withLock { $0 } }
}
