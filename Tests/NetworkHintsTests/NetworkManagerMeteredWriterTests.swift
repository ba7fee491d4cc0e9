import DBus
// SPDX-License-Identifier: Apache-2.0
import Locking
import SDEvent
import Testing

@testable import NetworkHints

/// The write-through against the Python stand-in's GetDeviceByIpIface, GetAppliedConnection and Reapply on a
/// private dbus-daemon: the applied connection goes back with only connection.metered changed and every other value
/// of its exact type (the stand-in checks), Metered follows, and a value set in NetworkManager is left alone.
@Suite(.serialized, .enabled(if: canRunBusTests)) struct NetworkManagerMeteredWriterTests {
    @Test func writesGivesBackAndLeavesTheUsersValueAlone() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let networkManager = try StandIn("networkmanager", bus: bus)
        defer { networkManager.stop() }
        try networkManager.send("add eth0 4")
        let loop = try SDEventLoop.startedOnNewThread(name: "writer-test")
        defer { loop.exit() }

        let box = WatcherBox<NetworkManagerWatcher>()
        let metered = Changes { box.watcher?.meteredInterfaces ?? [:] }
        let watcher = NetworkManagerWatcher(onChange: { metered.continuation.yield() })
        box.watcher = watcher
        let reports = Reports()
        let reported = Changes { reports.entries.map(\.kind) }
        let writer = NetworkManagerMeteredWriter(
            report: {
                reports.append($0)
                reported.continuation.yield()
            }, onDiscountChange: {})
        let watch = SystemBusWatch(
            address: bus.address, networkManager: watcher, modemManager: nil, meteredWriter: writer, loop: loop,
            onProblem: { _ in })
        watch.start()
        defer { watch.stop() }
        #expect(await metered.until { $0["eth0"] == .guessNo } != nil)
        let shared = UncheckedTransfer(writer)
        func update(_ wanted: Set<String>, enabled: Bool = true) {
            let devices = watcher.meteredInterfaces
            loop.sync { shared.value.update(enabled: enabled, wanted: wanted, devices: devices) }
        }

        // pathmond finds eth0 constrained: NetworkManager's device says metered yes.
        update(["eth0"])
        #expect(await metered.until { $0["eth0"] == .yes } != nil)
        #expect(await reported.until { $0 == [.wrote] } != nil)
        #expect(loop.sync { shared.value.discounted } == ["eth0"])
        try networkManager.send("check eth0")

        // The reason ends: given back, to the profile's unknown (GUESS_NO on the device).
        update(["eth0"])
        update([])
        #expect(await metered.until { $0["eth0"] == .guessNo } != nil)
        #expect(await reported.until { $0 == [.wrote, .restored] } != nil)
        #expect(loop.sync { shared.value.discounted }.isEmpty)
        try networkManager.send("check eth0")

        // The user says "not metered" in NetworkManager: pathmond's reason does not override it.
        try networkManager.send("applied eth0 2")
        #expect(await metered.until { $0["eth0"] == .no } != nil)
        update(["eth0"])
        #expect(await reported.until { $0 == [.wrote, .restored, .leftAlone] } != nil)
        #expect(reports.entries.last?.before == .no)
        #expect(watcher.meteredInterfaces["eth0"] == .no)

        // Back to unknown, a new reason: written again, and pathmond's stop gives it back before it returns.
        try networkManager.send("applied eth0 0")
        #expect(await metered.until { $0["eth0"] == .guessNo } != nil)
        update([])
        update(["eth0"])
        #expect(await metered.until { $0["eth0"] == .yes } != nil)
        #expect(await reported.until { $0.count == 4 } != nil)
        loop.sync { shared.value.restoreAllNow() }
        #expect(await metered.until { $0["eth0"] == .guessNo } != nil)
        #expect(reports.entries.map(\.kind) == [.wrote, .restored, .leftAlone, .wrote, .restored])
        try networkManager.send("check eth0")
    }

    /// NetworkManager refuses pathmond (polkit has no rule for it yet); once it authorizes, the write goes through
    /// by itself within the retry's wait: no new reason, no new path change.
    @Test func aRefusedWriteGoesThroughOnceAuthorized() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let networkManager = try StandIn("networkmanager", bus: bus)
        defer { networkManager.stop() }
        try networkManager.send("add eth0 4")
        try networkManager.send("authorize off")
        let loop = try SDEventLoop.startedOnNewThread(name: "writer-retry-test")
        defer { loop.exit() }

        let box = WatcherBox<NetworkManagerWatcher>()
        let metered = Changes { box.watcher?.meteredInterfaces ?? [:] }
        let watcher = NetworkManagerWatcher(onChange: { metered.continuation.yield() })
        box.watcher = watcher
        let reports = Reports()
        let reported = Changes { reports.entries.map(\.kind) }
        // As the daemon does on a discount change: decide again, on a later turn, with what it finds then.
        let writerBox = Locked<NetworkManagerMeteredWriter?>(nil)
        let writer = NetworkManagerMeteredWriter(
            report: {
                reports.append($0)
                reported.continuation.yield()
            },
            onDiscountChange: {
                loop.execute {
                    let devices = watcher.meteredInterfaces
                    writerBox.withLock { $0 }?.update(enabled: true, wanted: ["eth0"], devices: devices)
                }
            })
        writerBox.withLock { $0 = writer }
        let watch = SystemBusWatch(
            address: bus.address, networkManager: watcher, modemManager: nil, meteredWriter: writer, loop: loop,
            onProblem: { _ in })
        watch.start()
        defer { watch.stop() }
        #expect(await metered.until { $0["eth0"] == .guessNo } != nil)
        let shared = UncheckedTransfer(writer)
        let devices = watcher.meteredInterfaces
        loop.sync { shared.value.update(enabled: true, wanted: ["eth0"], devices: devices) }
        #expect(await reported.until { $0 == [.failed] } != nil)
        #expect(reports.entries.first?.detail.contains("Not authorized") == true, "\(reports.entries)")

        try networkManager.send("authorize on")
        #expect(await metered.until { $0["eth0"] == .yes } != nil, "written once authorized: \(reports.entries)")
        #expect(await reported.until { $0.last == .wrote } != nil, "\(reports.entries)")
        try networkManager.send("check eth0")
    }
}

/// What the writer reported, in order.
final class Reports: Sendable {
    private let stored = Locked<[NetworkManagerMeteredWriter.Report]>([])

    func append(_ report: NetworkManagerMeteredWriter.Report) { stored.withLock { $0.append(report) } }

    var entries: [NetworkManagerMeteredWriter.Report] { stored.withLock { $0 } }
}
