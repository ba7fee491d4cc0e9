// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PathModel
import PathMonitor
import Testing

/// Issue 26's captive portal from a real NetworkManager (Debian's package, on a private system bus): its own
/// connectivity check asks an HTTP server on the far side of eth0, which answers with a portal's page, then with
/// the expected text once the portal is "accepted". NetworkManager says PORTAL, then FULL, on the device, and the
/// path follows: captive, then open.
@Suite(
    .serialized,
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: RealNetworkManager.executable)
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")))
struct NetworkManagerPortalTests {
    static let configuration = """
        [interface eth0]
        network = wired:02:00:00:00:00:01
        """

    @Test func networkManagersPortalVerdictReachesThePath() async throws {
        let bus = try PrivateSystemBus()
        defer { bus.stop() }
        let site = bus.directory.appending(path: "site")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        let check = site.appending(path: "check")
        try Data("<html>Welcome to the hotel network: log in</html>".utf8).write(to: check)
        var server: Process?
        let (scenario, networkManager) = try Scenario.withNetworkManager(
            on: bus, configuration: Self.configuration,
            connectivityCheck: (uri: "http://192.0.2.1:8080/check", response: "pathmond-online")
        ) { scenario in
            let process = Process()
            process.executableURL = URL(filePath: "/usr/bin/env")
            process.arguments = [
                "ip", "netns", "exec", scenario.namespace.far, "python3", "-m", "http.server", "8080", "--bind",
                "192.0.2.1", "--directory", site.path,
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            server = process
        }
        defer { #expect(scenario.tearDown() == 0) }
        defer { networkManager.stop() }
        // SIGKILL: the server comes up with SIGTERM blocked (the spawning thread's mask), and terminate() left one
        // running after every run of the suite.
        defer { if let server, server.isRunning { kill(server.processIdentifier, SIGKILL) } }
        let log = scenario.client.log

        let captive = try await log.nextPath(timeout: .seconds(45), "NetworkManager's check finds the portal") {
            $0.status == .satisfied && $0.captivePortal == .captive
        }
        #expect(captive.interfaceNames == ["eth0"], "\(networkManager.log)")
        let socket = scenario.daemon.socketPath
        let held = try runCommand([product("pathctl"), "check", "--unmetered", "--socket", socket], check: false)
        #expect(held.status == 4, "\(held.output)\(held.errorOutput)")

        // The portal is accepted: the check gets the expected text, and NetworkManager says FULL.
        try Data("pathmond-online".utf8).write(to: check)
        _ = try await log.nextPath(timeout: .seconds(45), "NetworkManager's check passes") {
            $0.captivePortal == .open
        }
        #expect(try runCommand([product("pathctl"), "check", "--unmetered", "--socket", socket]).status == 0)
    }
}
