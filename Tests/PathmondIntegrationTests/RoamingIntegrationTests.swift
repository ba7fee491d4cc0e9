// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathMonitor
import PathProtocol
import Testing

/// Roaming end to end: pathmond follows the ModemManager stand-in (the watcher tests' standin.py, ModemManager's
/// documented interface) on a private dbus-daemon; the modem of wwan0 registers roaming and back home.
@Suite(
    .serialized,
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") && getuid() == 0))
struct RoamingIntegrationTests {
    static let configuration = """
        [interface wwan*]
        type = cellular
        expensive = no
        """

    @Test func aRoamingModemIsExpensiveAndLeavesThePathOfClientsThatProhibitRoaming() async throws {
        let bus = try PrivateSystemBus()
        defer { bus.stop() }
        let scenario = try Scenario.start(
            configuration: Self.configuration, arguments: ["--system-bus", bus.address]
        ) { namespace in
            try namespace.addVeth("wwan0", peer: "wwan0-peer")
            try namespace.ip("address add 100.64.0.10/24 dev wwan0")
            try namespace.ip("route add default via 100.64.0.1 dev wwan0")
        }
        defer { #expect(scenario.tearDown() == 0) }
        let modemManager = try StandInProcess("modemmanager", bus: bus)
        defer { modemManager.stop() }
        let log = scenario.client.log
        _ = try await log.nextPath { $0.status == .satisfied && !$0.isExpensive }
        try modemManager.send("modem wwan0 356938035643809 8944110068256270054 262011234567890")

        try modemManager.send("register wwan0 5")
        let roaming = try await log.nextPath { $0.isRoaming }
        #expect(roaming.isExpensive && roaming.availableInterfaces.first?.isRoaming == true)
        let connection = try PathmondConnection(socketPath: scenario.daemon.socketPath)
        let modem = try #require(try connection.interfaces().first { $0.name == "wwan0" })
        #expect(modem.isRoaming == true && modem.expensiveSource == "roaming", "\(modem) \(roaming)")
        #expect(
            try connection.path(parameters: PathParameters(prohibitsRoaming: true)).unsatisfiedReason
                == .onlyRoamingInterfaces)
        let status = try runCommand(
            [product("pathctl"), "status", "--no-pager", "--socket", scenario.daemon.socketPath], check: false)
        #expect(status.output.contains("roaming"), "\(status.output)")
        // The change the roaming made is recorded with its cause; the SIM's identity, read without waiting, may be
        // recorded just before or after it.
        let history = try connection.history(PathHistoryQuery(limit: 3))
        #expect(history.contains { $0.cause.detail == "roaming" }, "\(history)")

        try modemManager.send("register wwan0 1")
        let home = try await log.nextPath { !$0.isRoaming }
        #expect(!home.isExpensive)
    }
}
