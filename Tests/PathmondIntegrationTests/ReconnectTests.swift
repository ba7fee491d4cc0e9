// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathMonitor
import Testing

/// A subscriber outlives the daemon: it hears that the path became unknown, then gets the real path again from
/// the restarted daemon, without the app doing anything.
@Suite(.serialized) struct ReconnectTests {
    @Test func monitorReconnectsWhenTheDaemonRestarts() async throws {
        let scenario = try Scenario.start { try $0.addWiredUplink(routed: true) }
        defer { #expect(scenario.tearDown() == 0) }
        let log = scenario.client.log
        _ = try await log.nextPath { $0.status == .satisfied }
        #expect(scenario.client.monitor.currentPath?.status == .satisfied)

        // A crash: no goodbye. The monitor must report the path unknown rather than keep the old one.
        scenario.daemon.kill()
        let outage = try await log.next { if case .unavailable = $0 { return true } else { return false } }
        guard case .unavailable(let error) = outage else { return }
        #expect(error == .disconnected || error == .daemonNotRunning(socketPath: scenario.daemon.socketPath))
        #expect(scenario.client.monitor.currentPath == nil)

        // The network changes while nobody watches; the restarted daemon tells the truth at once.
        try scenario.namespace.ip("route del default via 192.0.2.1 dev eth0")
        try scenario.daemon.start()
        let after = try await log.nextPath { _ in true }
        #expect(after.unsatisfiedReason == .noDefaultRoute)
        #expect(scenario.client.monitor.currentPath == after)
    }

    @Test(.timeLimit(.minutes(1))) func cancelEndsTheSequence() async throws {
        let scenario = try Scenario.start { try $0.addVeth("eth0", peer: "eth0-peer") }
        defer { #expect(scenario.tearDown() == 0) }
        let monitor = NetworkPathMonitor(socketPath: scenario.daemon.socketPath)
        var iterator = monitor.paths.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.status == .unsatisfied)
        monitor.cancel()
        // Updates already buffered may still come out; then the sequence must end.
        var leftovers = 0
        while await iterator.next() != nil { leftovers += 1 }
        #expect(leftovers < 10)
    }
}

/// A second daemon on a socket in use refuses to start instead of stealing the first one's clients.
@Suite(.serialized) struct SingleInstanceTests {
    @Test func secondDaemonOnALiveSocketFails() async throws {
        let scenario = try Scenario.start { try $0.addVeth("eth0", peer: "eth0-peer") }
        defer { #expect(scenario.tearDown() == 0) }
        let result = try runCommand(
            scenario.namespace.exec + [product("pathmond"), "--socket", scenario.daemon.socketPath], check: false)
        #expect(result.status != 0)
        #expect(result.errorOutput.contains("another pathmond is already serving"))
        // The first daemon still serves.
        let path = try PathmondConnection(socketPath: scenario.daemon.socketPath).path()
        #expect(path.status == .unsatisfied)
    }
}
