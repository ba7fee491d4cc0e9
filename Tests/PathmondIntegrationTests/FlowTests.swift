// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathMonitor
import Testing

/// Viability and better path end to end, with veth pairs typed Wi-Fi (wl*) and cellular (ww*) by the
/// configuration: the three scenarios of the seeds, and the parameters and policy that shape them.
@Suite(.serialized) struct FlowTests {
    static let wifiAddress = "198.51.100.10"
    static let cellularAddress = "203.0.113.10"
    static let remote = IPAddress("192.0.2.80")!

    static func addWifi(_ namespace: NetworkNamespace, up: Bool = true) throws {
        try namespace.addVeth("wlan0", peer: "wlan0-peer", up: up)
        try namespace.ip("address add \(wifiAddress)/24 dev wlan0")
        if up { try namespace.ip("route add default via 198.51.100.1 dev wlan0 metric 600") }
    }

    static func addCellular(_ namespace: NetworkNamespace) throws {
        try namespace.addVeth("wwan0", peer: "wwan0-peer")
        try namespace.ip("address add \(cellularAddress)/24 dev wwan0")
        // NetworkManager's WWAN metric: above Wi-Fi's 600, so the kernel prefers Wi-Fi when both are up.
        try namespace.ip("route add default via 203.0.113.1 dev wwan0 metric 700")
    }

    /// What keeps a connection on cellular while Wi-Fi is preferred: a rule that sends packets from the cellular
    /// address out of the modem (a multihomed host's source routing). Without it the kernel sends them out of
    /// Wi-Fi, lower metric first, and the cellular flow is not viable (its packets leave by another interface).
    static func addCellularSourceRouting(_ namespace: NetworkNamespace) throws {
        try namespace.ip("rule add from \(cellularAddress) table 200 pref 100")
        try namespace.ip("route add default via 203.0.113.1 dev wwan0 table 200")
    }

    static func addWifiAndCellular(_ namespace: NetworkNamespace) throws {
        try addWifi(namespace)
        try addCellular(namespace)
    }

    static func flow(on interface: String, parameters: PathParameters = .unrestricted) -> Flow {
        let local = interface == "wlan0" ? wifiAddress : cellularAddress
        return Flow(
            interfaceName: interface, localAddress: IPAddress(local)!, remoteAddress: remote, parameters: parameters)
    }

    func watch(_ flow: Flow, _ scenario: Scenario) -> FlowLog {
        FlowLog(FlowMonitor(flow: flow, socketPath: scenario.daemon.socketPath, retryDelay: .milliseconds(50)))
    }

    @Test func onWifiWifiDropsWithNothingElse() async throws {
        let scenario = try Scenario.start { try Self.addWifi($0) }
        defer { #expect(scenario.tearDown() == 0) }
        let log = watch(Self.flow(on: "wlan0"), scenario)
        defer { log.monitor.cancel() }
        _ = try await log.next("viable on Wi-Fi") { $0 == FlowStatus(isViable: true, betterPathAvailable: false) }

        try scenario.namespace.ip("link set wlan0 down")
        _ = try await log.next("not viable, nothing better") {
            $0 == FlowStatus(isViable: false, betterPathAvailable: false)
        }
    }

    @Test func onWifiWifiDropsWithCellularUp() async throws {
        let scenario = try Scenario.start(prepare: Self.addWifiAndCellular)
        defer { #expect(scenario.tearDown() == 0) }
        let log = watch(Self.flow(on: "wlan0"), scenario)
        defer { log.monitor.cancel() }
        _ = try await log.next("viable on Wi-Fi, which is preferred") { $0.isViable && !$0.betterPathAvailable }

        try scenario.namespace.ip("link set wlan0 down")
        let status = try await log.next("not viable, cellular better") { !$0.isViable }
        #expect(
            status
                == FlowStatus(
                    isViable: false, betterPathAvailable: true, betterInterface: "wwan0",
                    betterInterfaceAddresses: [IPAddress(Self.cellularAddress)!]))
    }

    @Test func onCellularWifiComesUp() async throws {
        let scenario = try Scenario.start {
            try Self.addWifi($0, up: false)
            try Self.addCellular($0)
            try Self.addCellularSourceRouting($0)
        }
        defer { #expect(scenario.tearDown() == 0) }
        let log = watch(Self.flow(on: "wwan0"), scenario)
        defer { log.monitor.cancel() }
        _ = try await log.next("viable on cellular, nothing better") { $0.isViable && !$0.betterPathAvailable }

        try scenario.namespace.farIP("link set wlan0-peer up")
        try scenario.namespace.ip("link set wlan0 up")
        try scenario.namespace.ip("route add default via 198.51.100.1 dev wlan0 metric 600")
        let status = try await log.next("still viable, Wi-Fi better") { $0.betterPathAvailable }
        #expect(
            status
                == FlowStatus(
                    isViable: true, betterPathAvailable: true, betterInterface: "wlan0",
                    betterInterfaceAddresses: [IPAddress(Self.wifiAddress)!]))
    }

    @Test func prohibitingExpensiveNeverOffersCellular() async throws {
        let scenario = try Scenario.start(prepare: Self.addWifiAndCellular)
        defer { #expect(scenario.tearDown() == 0) }
        let frugal = watch(Self.flow(on: "wlan0", parameters: PathParameters(prohibitsExpensive: true)), scenario)
        let eager = watch(Self.flow(on: "wlan0"), scenario)
        defer {
            frugal.monitor.cancel()
            eager.monitor.cancel()
        }
        _ = try await frugal.next("viable") { $0.isViable }
        try scenario.namespace.ip("link set wlan0 down")
        // The flow that may use cellular is told about it; the one that may not is only told it lost Wi-Fi.
        _ = try await eager.next("cellular offered") { !$0.isViable && $0.betterPathAvailable }
        let status = try await frugal.next("no better path") { !$0.isViable }
        #expect(status == FlowStatus(isViable: false, betterPathAvailable: false))
    }

    @Test func constrainedWifiIsNotBetterForAFlowThatProhibitsIt() async throws {
        let wifiKey = "wifi:Office"
        let configuration = Scenario.testConfiguration + "\n\n[interface wlan0]\nnetwork = \(wifiKey)\n"
        let scenario = try Scenario.start(configuration: configuration) {
            try Self.addWifi($0)
            try Self.addCellular($0)
            try Self.addCellularSourceRouting($0)
        }
        defer { #expect(scenario.tearDown() == 0) }
        let log = watch(Self.flow(on: "wwan0", parameters: PathParameters(prohibitsConstrained: true)), scenario)
        defer { log.monitor.cancel() }
        _ = try await log.next("Wi-Fi better at first") { $0.betterPathAvailable && $0.betterInterface == "wlan0" }

        let pathctl = [product("pathctl"), "set-constrained", "--key", wifiKey, "--socket", scenario.daemon.socketPath]
        #expect(try runCommand(pathctl).status == 0)
        // Low Data Mode on the Wi-Fi: it is no better for this flow, with no kernel event at all.
        _ = try await log.next("constrained Wi-Fi not better") { $0.isViable && !$0.betterPathAvailable }
        #expect(try runCommand(pathctl + ["--off"]).status == 0)
        _ = try await log.next("Wi-Fi better once the mark is gone") { $0.betterPathAvailable }
    }

    @Test func flowOnADeletedInterface() async throws {
        let scenario = try Scenario.start(prepare: Self.addWifiAndCellular)
        defer { #expect(scenario.tearDown() == 0) }
        let log = watch(Self.flow(on: "wlan0"), scenario)
        defer { log.monitor.cancel() }
        _ = try await log.next("viable") { $0.isViable }
        try scenario.namespace.ip("link del wlan0")
        let status = try await log.next("gone") { !$0.isViable }
        #expect(status.betterInterface == "wwan0")
    }

    @Test func flowSurvivesADaemonRestart() async throws {
        let scenario = try Scenario.start { try Self.addWifi($0) }
        defer { #expect(scenario.tearDown() == 0) }
        let log = watch(Self.flow(on: "wlan0"), scenario)
        defer { log.monitor.cancel() }
        _ = try await log.next("viable") { $0.isViable }
        scenario.daemon.kill()
        try await log.nextUnavailable()
        #expect(log.monitor.currentStatus == nil, "unknown while the daemon is away, never guessed")
        try scenario.namespace.ip("address del \(Self.wifiAddress)/24 dev wlan0")
        try scenario.daemon.start()
        _ = try await log.next("the restarted daemon's truth") { !$0.isViable }
    }

    @Test func manyFlowsAtOnce() async throws {
        let count = 40
        let scenario = try Scenario.start {
            try Self.addWifi($0)
            try Self.addCellular($0)
            for host in 0..<count { try $0.ip("address add 198.51.100.\(100 + host)/24 dev wlan0") }
        }
        defer { #expect(scenario.tearDown() == 0) }
        let logs = (0..<count).map { host in
            watch(
                Flow(
                    interfaceName: "wlan0", localAddress: IPAddress("198.51.100.\(100 + host)")!,
                    remoteAddress: Self.remote),
                scenario)
        }
        defer { for log in logs { log.monitor.cancel() } }
        for log in logs { _ = try await log.next("viable") { $0.isViable } }
        #expect(scenario.daemon.log.components(separatedBy: "a client subscribed").count > count)

        // One address goes: only its flow loses viability. Then Wi-Fi goes: every flow hears of cellular.
        try scenario.namespace.ip("address del 198.51.100.100/24 dev wlan0")
        _ = try await logs[0].next("its address gone") { !$0.isViable && !$0.betterPathAvailable }
        try scenario.namespace.ip("link set wlan0 down")
        for log in logs { _ = try await log.next("cellular better") { !$0.isViable && $0.betterPathAvailable } }
        #expect(await logs[1].all.count == 2, "an unrelated address change is not sent to other flows")
    }
}
