// SPDX-License-Identifier: Apache-2.0
import DBus
import Locking
import Testing

@testable import NetworkHints

/// Issue 25: a service that takes its time to answer holds nothing else up. NetworkManager (the stand-in) answers
/// every GetAll only after 1 s; a modem plugged in meanwhile reaches the ModemManager watcher on the same loop at
/// once, before NetworkManager's device does. With the calls waited for (sd_bus_call), the loop sat in the slow
/// GetAll and the modem came second.
@Suite(.serialized, .enabled(if: canRunBusTests)) struct SlowServiceTests {
    @Test func aSlowNetworkManagerDoesNotHoldModemManagerBack() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let order = Locked<[String]>([])
        let networkManagerBox = WatcherBox<NetworkManagerWatcher>()
        let modemManagerBox = WatcherBox<ModemManagerWatcher>()
        let networkManagerWatcher = NetworkManagerWatcher(onChange: {
            if networkManagerBox.watcher?.meteredInterfaces["eth0"] != nil {
                order.withLock { if !$0.contains("networkmanager") { $0.append("networkmanager") } }
            }
        })
        let modemManagerWatcher = ModemManagerWatcher(onChange: {
            if (try? modemManagerBox.watcher?.subscribers(forInterfaces: ["wwan0"]))?["wwan0"] != nil {
                order.withLock { if !$0.contains("modemmanager") { $0.append("modemmanager") } }
            }
        })
        networkManagerBox.watcher = networkManagerWatcher
        modemManagerBox.watcher = modemManagerWatcher
        let networkManager = try StandIn("networkmanager", bus: bus)
        defer { networkManager.stop() }
        let modemManager = try StandIn("modemmanager", bus: bus)
        defer { modemManager.stop() }
        let watch = SystemBusWatch(
            address: bus.address, networkManager: networkManagerWatcher, modemManager: modemManagerWatcher,
            onProblem: { _ in })
        watch.start()
        defer { watch.stop() }
        // Both followed before the change: a round trip through each watcher's first read.
        try await Task.sleep(for: .milliseconds(500))

        try networkManager.send("slow 1")
        try networkManager.send("add eth0 1")
        try modemManager.send("modem wwan0 356938035643809 8944110068256270054 262011234567890")
        for _ in 0..<1_000 where order.withLock({ $0.count }) < 2 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(order.withLock { $0 } == ["modemmanager", "networkmanager"])
    }
}
