// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The reference Python implementation of Varlink (PyPI's `varlink`) talks to pathmond unchanged.
@Suite(.serialized) struct GenericClientTests {
    static let script = URL(filePath: #filePath).deletingLastPathComponent()
        .appending(path: "Fixtures/varlink_client.py").path

    @Test func pythonVarlinkGetsAndWatchesThePath() async throws {
        let scenario = try Scenario.start { try $0.addWiredUplink(routed: true) }
        defer { #expect(scenario.tearDown() == 0) }

        let get = try runCommand(["python3", Self.script, scenario.daemon.socketPath, "get"])
        #expect(get.output.contains("status=satisfied interfaces=eth0 gateways=192.0.2.1"), "\(get.output)")

        let describe = try runCommand(["python3", Self.script, scenario.daemon.socketPath, "describe"])
        #expect(describe.output.contains("method WatchPath(requirements: ?PathRequirements)"))

        // Watch: the current path, then the change the test makes once the first reply is in.
        let watcher = Task.detached {
            try runCommand(["python3", Self.script, scenario.daemon.socketPath, "watch", "2"])
        }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
        try await waitForSubscribers(scenario, count: 2)
        try scenario.namespace.ip("route del default via 192.0.2.1 dev eth0")
        let watched = try await watcher.value.output.split(separator: "\n")
        #expect(
            watched == [
                "status=satisfied interfaces=eth0 gateways=192.0.2.1", "status=unsatisfied reason=noDefaultRoute",
            ])
    }

    /// The Python watcher has subscribed once the daemon logs its second WatchPath subscriber.
    private func waitForSubscribers(_ scenario: Scenario, count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if scenario.daemon.log.components(separatedBy: "a client subscribed").count > count { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("the python client never subscribed")
    }
}
