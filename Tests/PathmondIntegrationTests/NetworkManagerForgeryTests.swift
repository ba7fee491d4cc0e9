// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathProtocol
import Testing

/// Issue 22, item 1, end to end: pathmond follows a real NetworkManager on a bus with Debian's system-bus policy;
/// the user's Ethernet profile is metered, so `pathctl check --unmetered` says expensive (exit 2). As nobody, a
/// local user sends NetworkManager's signals to pathmond's connection and as broadcasts: Metered NO on every
/// device, DeviceRemoved, and the bus's NameOwnerChanged (NetworkManager gone). pathmond logs the refusal once, at
/// warning, and the apt gate stays shut; the user's own change through NetworkManager still opens it.
@Suite(
    .serialized,
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: RealNetworkManager.executable)
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") && getuid() == 0))
struct NetworkManagerForgeryTests {
    /// The forger shared with the watcher tests (NetworkHintsTests).
    static let forger = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "NetworkHintsTests/Fixtures/dbus/forge.py").path

    @Test func nobodyCannotMakeAMeteredLinkCheap() async throws {
        let bus = try PrivateSystemBus(debianPolicy: true)
        defer { bus.stop() }
        let (scenario, networkManager) = try Scenario.withNetworkManager(
            on: bus, configuration: NetworkManagerTests.configuration)
        defer { #expect(scenario.tearDown() == 0) }
        defer { networkManager.stop() }
        let log = scenario.client.log
        let socket = scenario.daemon.socketPath
        _ = try await log.nextPath(timeout: .seconds(30), "eth0 configured by NetworkManager") {
            $0.status == .satisfied && $0.interfaceNames == ["eth0"]
        }
        try networkManager.nmcli("connection", "modify", "eth0", "connection.metered", "yes")
        try networkManager.nmcli("device", "reapply", "eth0")
        _ = try await log.nextPath { $0.status == .satisfied && $0.isExpensive }
        let check = [product("pathctl"), "check", "--unmetered", "--socket", socket]
        #expect(try runCommand(check, check: false).status == 2)

        let pid = try #require(scenario.daemon.processID)
        let forged = try runCommand([
            "/usr/bin/setpriv", "--reuid", "nobody", "--regid", "nogroup", "--clear-groups", "/usr/bin/python3",
            Self.forger, "networkmanager", bus.address, "\(pid)", "20",
        ])
        // Every forged signal sits in pathmond's queue (the forger's last call was a round trip to the bus daemon):
        // handled, they are either refused and logged, or believed and the gate opens.
        let refusal = "warning: NetworkManager: ignoring NameOwnerChanged"
        try await eventually("the forged Metered is handled") {
            try scenario.daemon.log.contains(refusal) || runCommand(check, check: false).status != 2
        }
        #expect(try runCommand(check, check: false).status == 2, "the gate opened: \(forged.output)")
        #expect(scenario.daemon.log.contains(refusal))

        // The user says the plan is unlimited, through NetworkManager: that still counts.
        try networkManager.nmcli("connection", "modify", "eth0", "connection.metered", "no")
        try networkManager.nmcli("device", "reapply", "eth0")
        _ = try await log.nextPath { $0.status == .satisfied && !$0.isExpensive }
        #expect(try runCommand(check, check: false).status == 0)
        let refusals = scenario.daemon.log.split(separator: "\n").filter { $0.contains(": ignoring ") }
        #expect(refusals.count == 1, "one line a minute at most: \(refusals)")
    }
}
