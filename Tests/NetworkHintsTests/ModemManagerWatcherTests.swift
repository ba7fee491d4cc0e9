// SPDX-License-Identifier: Apache-2.0
import DBus
import Testing

@testable import NetworkHints

/// ModemManager's documented D-Bus interface, served by the Python stand-in on a private dbus-daemon: modems
/// plugged and unplugged (InterfacesAdded/Removed), a SIM swapped (the modem's Sim changes) and a SIM read late
/// (PropertiesChanged on the SIM), each followed without asking again.
@Suite(.serialized, .enabled(if: canRunBusTests)) struct ModemManagerWatcherTests {
    @Test func notConnectedIsNoBus() {
        let watcher = ModemManagerWatcher(onChange: {})
        #expect {
            try watcher.subscribers(forInterfaces: ["wwan0"])
        } throws: { error in
            guard case .noBus = error as? CellularIdentityUnavailable else { return false }
            return true
        }
    }

    @Test func followsModemsAndSims() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let box = WatcherBox<ModemManagerWatcher>()
        let changes = Changes { () -> Result<[String: CellularSubscriber], CellularIdentityUnavailable> in
            guard let watcher = box.watcher else { return .failure(.noBus("")) }
            return Result { () throws(CellularIdentityUnavailable) in
                try watcher.subscribers(forInterfaces: ["wwan0", "wwan1"])
            }
        }
        let watcher = ModemManagerWatcher(onChange: { changes.continuation.yield() })
        box.watcher = watcher
        let watch = SystemBusWatch(
            address: bus.address, networkManager: nil, modemManager: watcher, onProblem: { _ in })
        watch.start()
        defer { watch.stop() }

        // Connected, ModemManager not running: the fallback to sysfs needs to know.
        #expect(await changes.until { $0 == .failure(.serviceNotRunning) } != nil)

        var modemManager = try StandIn("modemmanager", bus: bus)
        try modemManager.send("modem wwan0 356938035643809 8944110068256270054 262011234567890")
        let first = CellularSubscriber(
            iccid: "8944110068256270054", imsi: "262011234567890", hardwareIdentity: "imei:356938035643809")
        #expect(await changes.until { $0 == .success(["wwan0": first]) } != nil)

        // Another SIM in the same modem: a new SIM object, the modem's Sim property moves to it.
        try modemManager.send("sim wwan0 8944110068256270062 262019876543210")
        #expect(
            await changes.until { (try? $0.get())?["wwan0"]?.iccid == "8944110068256270062" }?
                .map { $0["wwan0"]?.imsi } == .success("262019876543210"))

        // A SIM whose identifiers ModemManager reads only after unlocking: PropertiesChanged on the SIM.
        try modemManager.send("simread wwan0 8944110068256270070 262010000000000")
        #expect(await changes.until { (try? $0.get())?["wwan0"]?.iccid == "8944110068256270070" } != nil)

        try modemManager.send("modem wwan1 356938035643817 8944110068256270088 262011111111111")
        #expect(await changes.until { (try? $0.get())?.count == 2 } != nil)
        try modemManager.send("unplug wwan0")
        #expect(await changes.until { (try? $0.get())?.keys.sorted() == ["wwan1"] } != nil)

        // ModemManager stops and comes back with the modem it still has.
        modemManager.stop()
        #expect(await changes.until { $0 == .failure(.serviceNotRunning) } != nil)
        modemManager = try StandIn("modemmanager", bus: bus)
        defer { modemManager.stop() }
        try modemManager.send("modem wwan1 356938035643817 8944110068256270088 262011111111111")
        #expect(await changes.until { (try? $0.get())?["wwan1"]?.imsi == "262011111111111" } != nil)
    }

    /// Roaming, access technology and signal quality follow ModemManager's PropertiesChanged, on the modem and on its
    /// Modem3gpp interface, without asking again.
    @Test func followsTheRadio() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let box = WatcherBox<ModemManagerWatcher>()
        let changes = Changes { () -> [String: CellularRadio] in box.watcher?.radios() ?? [:] }
        let watcher = ModemManagerWatcher(onChange: { changes.continuation.yield() })
        box.watcher = watcher
        let watch = SystemBusWatch(
            address: bus.address, networkManager: nil, modemManager: watcher, onProblem: { _ in })
        watch.start()
        defer { watch.stop() }
        let modemManager = try StandIn("modemmanager", bus: bus)
        defer { modemManager.stop() }
        try modemManager.send("modem wwan0 356938035643809 8944110068256270054 262011234567890")
        let home = CellularRadio(isRoaming: false, accessTechnologies: 1 << 14, signalQuality: 60)
        #expect(await changes.until { $0 == ["wwan0": home] } != nil)

        // MM_MODEM_3GPP_REGISTRATION_STATE_ROAMING, then back home.
        try modemManager.send("register wwan0 5")
        #expect(await changes.until { $0["wwan0"]?.isRoaming == true } != nil)
        try modemManager.send("register wwan0 1")
        #expect(await changes.until { $0["wwan0"]?.isRoaming == false } != nil)

        // 5G NR (1 << 15) at 35 %; then a stale figure, which is none.
        try modemManager.send("radio wwan0 32768 35 yes")
        let fiveG = CellularRadio(isRoaming: false, accessTechnologies: 1 << 15, signalQuality: 35)
        #expect(await changes.until { $0["wwan0"] == fiveG } != nil)
        try modemManager.send("radio wwan0 32768 35 no")
        #expect(await changes.until { $0["wwan0"]?.signalQuality == nil } != nil)

        try modemManager.send("unplug wwan0")
        #expect(await changes.until { $0.isEmpty } != nil)
    }

    /// The identifiers never show in what gets logged.
    @Test func subscriberDescriptionHidesIdentifiers() {
        let subscriber = CellularSubscriber(iccid: "8944110068256270054", imsi: "262011234567890")
        #expect(!"\(subscriber)".contains("8944"))
        #expect(!"\(subscriber)".contains("26201"))
    }
}
