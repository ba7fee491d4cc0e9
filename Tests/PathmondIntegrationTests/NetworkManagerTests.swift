// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathMonitor
import PathProtocol
import Testing

/// NetworkManager as a source of "expensive": a real NetworkManager (Debian's package) manages eth0 in the test's
/// namespace on a private system bus; the user marks the connection metered with nmcli, NetworkManager's
/// Device.Metered changes, and pathmond, following the PropertiesChanged signal, marks the path expensive with
/// NetworkManager as the reason. The user's pathctl setting still wins.
@Suite(
    .serialized,
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: RealNetworkManager.executable)
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")))
struct NetworkManagerTests {
    static let configuration = """
        [interface eth0]
        network = wired:02:00:00:00:00:01
        """

    @Test func meteredInNetworkManagerMakesThePathExpensive() async throws {
        let bus = try PrivateSystemBus()
        defer { bus.stop() }
        let (scenario, networkManager) = try Scenario.withNetworkManager(on: bus, configuration: Self.configuration)
        defer { #expect(scenario.tearDown() == 0) }
        defer { networkManager.stop() }
        let log = scenario.client.log
        let socket = scenario.daemon.socketPath

        // NetworkManager configures eth0 from the profile; nothing says metered yet (GUESS_NO).
        let plain = try await log.nextPath(timeout: .seconds(30), "eth0 configured by NetworkManager") {
            $0.status == .satisfied && $0.interfaceNames == ["eth0"]
        }
        #expect(!plain.isExpensive, "\(networkManager.log)")

        // What GNOME Settings does when the user ticks "metered connection".
        try networkManager.nmcli("connection", "modify", "eth0", "connection.metered", "yes")
        let applied = ContinuousClock.now
        try networkManager.nmcli("device", "reapply", "eth0")
        let expensive = try await log.nextPath { $0.status == .satisfied && $0.isExpensive }
        print("NetworkManager reapply returned → expensive path at the client: \(ContinuousClock.now - applied)")
        #expect(expensive.availableInterfaces.first?.isExpensive == true)
        let eth0 = try #require(try PathmondConnection(socketPath: socket).interfaces().first { $0.name == "eth0" })
        #expect(eth0.expensiveSource == "networkManager")
        let table = try runCommand([product("pathctl"), "status", "--socket", socket]).output
        #expect(table.contains("yes (NetworkManager)"), "\(table)")
        let json = try runCommand([product("pathctl"), "status", "--json", "--socket", socket]).output
        #expect(json.contains("\"expensiveSource\":\"networkManager\""), "\(json)")

        // "It's an unlimited plan": the user's setting beats NetworkManager's.
        try runCommand([product("pathctl"), "set-expensive", "eth0", "--off", "--socket", socket])
        _ = try await log.nextPath { $0.status == .satisfied && !$0.isExpensive }
        let overridden = try #require(
            try PathmondConnection(socketPath: socket).interfaces().first { $0.name == "eth0" })
        #expect(overridden.expensiveSource == "user")

        // Back to detection, then NetworkManager stops: what it said no longer counts.
        try runCommand([product("pathctl"), "set-expensive", "eth0", "--auto", "--socket", socket])
        _ = try await log.nextPath { $0.status == .satisfied && $0.isExpensive }
        networkManager.stop()
        _ = try await log.nextPath { !$0.isExpensive }
        let daemonLog = scenario.daemon.log
        #expect(!daemonLog.contains("NetworkManager: "), "\(daemonLog)")
    }
}
