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
        let rig = try await WriterRig(name: "writer-test")
        defer { rig.stop() }
        let (networkManager, metered, reports, reported) = (rig.networkManager, rig.metered, rig.reports, rig.reported)
        let update = rig.update

        // pathmond finds eth0 constrained: NetworkManager's device says metered yes.
        update(["eth0"], true)
        #expect(await metered.until { $0["eth0"] == .yes } != nil)
        #expect(await reported.until { $0 == [.wrote] } != nil)
        #expect(rig.discounted == ["eth0"])
        try networkManager.send("check eth0")

        // The reason ends: given back, to the profile's unknown (GUESS_NO on the device).
        update(["eth0"], true)
        update([], true)
        #expect(await metered.until { $0["eth0"] == .guessNo } != nil)
        #expect(await reported.until { $0 == [.wrote, .restored] } != nil)
        #expect(rig.discounted.isEmpty)
        try networkManager.send("check eth0")

        // The user says "not metered" in NetworkManager: pathmond's reason does not override it.
        try networkManager.send("applied eth0 2")
        #expect(await metered.until { $0["eth0"] == .no } != nil)
        update(["eth0"], true)
        #expect(await reported.until { $0 == [.wrote, .restored, .leftAlone] } != nil)
        #expect(reports.entries.last?.before == .no)
        #expect(rig.watcher.meteredInterfaces["eth0"] == .no)

        // Back to unknown, a new reason: written again, and pathmond's stop gives it back before it returns.
        try networkManager.send("applied eth0 0")
        #expect(await metered.until { $0["eth0"] == .guessNo } != nil)
        update([], true)
        update(["eth0"], true)
        #expect(await metered.until { $0["eth0"] == .yes } != nil)
        #expect(await reported.until { $0.count == 4 } != nil)
        rig.restoreAllNow()
        #expect(await metered.until { $0["eth0"] == .guessNo } != nil)
        #expect(reports.entries.map(\.kind) == [.wrote, .restored, .leftAlone, .wrote, .restored])
        try networkManager.send("check eth0")
    }

    /// NetworkManager refuses pathmond (polkit has no rule for it yet); once it authorizes, the write goes through
    /// by itself within the retry's wait: no new reason, no new path change.
    @Test func aRefusedWriteGoesThroughOnceAuthorized() async throws {
        let rig = try await WriterRig(name: "writer-retry-test", refusing: true, decidingAgainWith: ["eth0"])
        defer { rig.stop() }
        rig.update(["eth0"], true)
        #expect(await rig.reported.until { $0 == [.failed] } != nil)
        #expect(rig.reports.entries.first?.detail.contains("Not authorized") == true, "\(rig.reports.entries)")

        try rig.networkManager.send("authorize on")
        let written = await rig.metered.until { $0["eth0"] == .yes }
        #expect(written != nil, "written once authorized: \(rig.reports.entries)")
        #expect(await rig.reported.until { $0.last == .wrote } != nil, "\(rig.reports.entries)")
        try rig.networkManager.send("check eth0")
    }
}

/// A private bus with the NetworkManager stand-in (eth0, metered guess-no), and a watcher and a writer on a loop of
/// their own, as the daemon has them.
final class WriterRig: @unchecked Sendable {
    // @unchecked: every field is set in init; the writer is used on `loop` only (through `update` and the rest).
    let bus: PrivateBus
    let networkManager: StandIn
    let loop: SDEventLoop
    let watcher: NetworkManagerWatcher
    let metered: Changes<[String: NetworkManagerMetered]>
    let reports = Reports()
    let reported: Changes<[NetworkManagerMeteredWriter.Report.Kind]>
    private let writer: Locked<NetworkManagerMeteredWriter?> = Locked(nil)
    private var watch: SystemBusWatch?

    /// `refusing`: the stand-in answers PermissionDenied, as NetworkManager does when polkit says no.
    /// `decidingAgainWith`: on a discount change the writer decides again, on a later turn, with these reasons and
    /// what NetworkManager says then, as the daemon does.
    init(name: String, refusing: Bool = false, decidingAgainWith wanted: Set<String>? = nil) async throws {
        bus = try PrivateBus()
        networkManager = try StandIn("networkmanager", bus: bus)
        try networkManager.send("add eth0 4")
        if refusing { try networkManager.send("authorize off") }
        loop = try SDEventLoop.startedOnNewThread(name: name)
        let box = WatcherBox<NetworkManagerWatcher>()
        let metered = Changes { box.watcher?.meteredInterfaces ?? [:] }
        let watcher = NetworkManagerWatcher(onChange: { metered.continuation.yield() })
        box.watcher = watcher
        (self.metered, self.watcher) = (metered, watcher)
        let (reports, loop, writerBox) = (reports, loop, writer)
        let reported = Changes { reports.entries.map(\.kind) }
        self.reported = reported
        let writer = NetworkManagerMeteredWriter(
            report: {
                reports.append($0)
                reported.continuation.yield()
            },
            onDiscountChange: {
                guard let wanted else { return }
                loop.execute {
                    let devices = watcher.meteredInterfaces
                    writerBox.withLock { $0 }?.update(enabled: true, wanted: wanted, devices: devices)
                }
            })
        self.writer.withLock { $0 = writer }
        let watch = SystemBusWatch(
            address: bus.address, networkManager: watcher, modemManager: nil, meteredWriter: writer, loop: loop,
            onProblem: { _ in })
        watch.start()
        self.watch = watch
        _ = await metered.until { $0["eth0"] == .guessNo }
    }

    /// Brings NetworkManager in line with pathmond's reasons, as the daemon's write-through does.
    var update: (Set<String>, Bool) -> Void {
        { [self] wanted, enabled in
            let devices = watcher.meteredInterfaces
            let writer = UncheckedTransfer(writer.withLock { $0 })
            loop.sync { writer.value?.update(enabled: enabled, wanted: wanted, devices: devices) }
        }
    }

    var discounted: Set<String> {
        let writer = UncheckedTransfer(writer.withLock { $0 })
        return loop.sync { writer.value?.discounted ?? [] }
    }

    func restoreAllNow() {
        let writer = UncheckedTransfer(writer.withLock { $0 })
        loop.sync { writer.value?.restoreAllNow() }
    }

    func stop() {
        watch?.stop()
        loop.exit()
        networkManager.stop()
        bus.stop()
    }
}

/// What the writer reported, in order.
final class Reports: Sendable {
    private let stored = Locked<[NetworkManagerMeteredWriter.Report]>([])

    func append(_ report: NetworkManagerMeteredWriter.Report) { stored.withLock { $0.append(report) } }

    var entries: [NetworkManagerMeteredWriter.Report] { stored.withLock { $0 } }
}
