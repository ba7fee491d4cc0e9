// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathMonitor
import Testing

/// Debian 12's unattended-upgrades, as installed from its package, holds back on a path pathmond calls expensive:
/// its own should_stop() asks Gio.NetworkMonitor, which is the pathmond module once GIO finds it.
@Suite(.serialized) struct UnattendedUpgradesTests {
    static let script = URL(filePath: #filePath).deletingLastPathComponent()
        .appending(path: "Fixtures/uu_should_stop.py").path

    struct Answer: Decodable {
        var type: String
        var stop: Bool
        var log: [String]
    }

    func shouldStop(_ scenario: Scenario, _ arguments: [String] = []) throws -> Answer {
        let modules = try GLibMonitor.moduleDirectory(in: scenario.daemon.directory)
        let result = try runCommand(
            [
                "env", "-u", "GIO_USE_NETWORK_MONITOR", "-u", "PYTHONPATH", "GIO_EXTRA_MODULES=\(modules)",
                "PATHMOND_SOCKET=\(scenario.daemon.socketPath)",
            ] + scenario.namespace.exec + ["/usr/bin/python3", Self.script] + arguments)
        return try JSONDecoder().decode(Answer.self, from: Data(result.output.utf8))
    }

    @Test func stopsOnAnExpensivePathAndGoesOnWhenItIsNot() async throws {
        let scenario = try GIOModuleTests.start()
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }

        let cheap = try shouldStop(scenario)
        #expect(cheap.type == "PathmondNetworkMonitor")
        #expect(cheap.stop == false, "\(cheap.log)")

        #expect(
            try runCommand([product("pathctl"), "set-expensive", "eth0", "--socket", scenario.daemon.socketPath]).status
                == 0)
        _ = try await scenario.client.log.nextPath { $0.isExpensive }
        let expensive = try shouldStop(scenario)
        #expect(expensive.stop == true)
        #expect(expensive.log.contains("System is on metered connection, stopping"))
        // The setting it honours: off, it goes on even here.
        #expect(try shouldStop(scenario, ["--skip-on-metered=false"]).stop == false)

        // The real command stops before touching apt: only the metered check runs first.
        let modules = try GLibMonitor.moduleDirectory(in: scenario.daemon.directory)
        let run = try runCommand(
            [
                "env", "-u", "GIO_USE_NETWORK_MONITOR", "GIO_EXTRA_MODULES=\(modules)",
                "PATHMOND_SOCKET=\(scenario.daemon.socketPath)",
            ] + scenario.namespace.exec + ["/usr/bin/unattended-upgrade", "--dry-run", "--debug"], check: false)
        #expect(run.status == 1)
        #expect((run.output + run.errorOutput).contains("System is on metered connection, stopping"))

        #expect(
            try runCommand([
                product("pathctl"), "set-expensive", "eth0", "--off", "--socket", scenario.daemon.socketPath,
            ]).status == 0)
        _ = try await scenario.client.log.nextPath { !$0.isExpensive }
        #expect(try shouldStop(scenario).stop == false)
    }
}
