// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathMonitor
import Testing

/// The GIO module in a real GLib process: GIO chooses it by priority, its properties and signals follow pathmond
/// through expensive, constrained and unsatisfied paths, it steps aside when pathmond is absent or stalled, and it
/// rides through a pathmond restart.
@Suite(.serialized) struct GIOModuleTests {
    typealias Properties = GLibMonitor.Properties

    /// eth0's network has a key without a neighbour lookup, so `pathctl set-expensive eth0` works at once.
    static let configuration = """
        [interface eth0]
        network = wired:02:00:00:00:00:01
        """

    static func start() throws -> Scenario {
        try Scenario.start(configuration: configuration) { try $0.addWiredUplink(routed: true) }
    }

    static func glib(_ scenario: Scenario) throws -> GLibMonitor {
        try GLibMonitor(
            in: scenario.namespace, socketPath: scenario.daemon.socketPath, directory: scenario.daemon.directory)
    }

    func pathctl(_ scenario: Scenario, _ arguments: String) throws {
        let result = try runCommand(
            [product("pathctl")] + arguments.split(separator: " ").map(String.init)
                + ["--socket", scenario.daemon.socketPath], check: false)
        #expect(result.status == 0, "pathctl \(arguments): \(result.errorOutput)")
    }

    @Test func chosenByGIOAndFollowsExpensiveConstrainedAndUnsatisfiedPaths() async throws {
        let scenario = try Self.start()
        defer { #expect(scenario.tearDown() == 0) }
        let glib = try Self.glib(scenario)
        defer { glib.stop() }

        let ready = try glib.next()
        #expect(ready.event == "ready")
        #expect(ready.type == "PathmondNetworkMonitor")
        #expect(ready.properties == Properties(available: true, metered: false, connectivity: "full"))
        // One Unix socket, no netlink socket (no route dump), no thread.
        #expect(ready.cost?.newSockets == 1)
        #expect(ready.cost?.newUnixSockets == 1)
        #expect(ready.cost?.newNetlinkSockets == 0)
        #expect(ready.cost?.threads == ready.before?.threads)

        try pathctl(scenario, "set-expensive eth0")
        var (notified, change) = try glib.nextChange()
        #expect(notified == ["network-metered"])
        #expect(change.argument == true)
        #expect(change.properties == Properties(available: true, metered: true, connectivity: "full"))

        try pathctl(scenario, "set-expensive eth0 --auto")
        (notified, change) = try glib.nextChange()
        #expect(notified == ["network-metered"])
        #expect(change.properties == Properties(available: true, metered: false, connectivity: "full"))

        // Low Data Mode alone is metered too.
        try pathctl(scenario, "set-constrained eth0")
        (notified, change) = try glib.nextChange()
        #expect(notified == ["network-metered"])
        #expect(change.properties == Properties(available: true, metered: true, connectivity: "full"))

        // Expensive on top of constrained flips nothing GIO reports: no signal. The next one is the route's.
        try pathctl(scenario, "set-expensive eth0")
        _ = try await scenario.client.log.nextPath { $0.isExpensive && $0.isConstrained }
        try scenario.namespace.ip("route del default via 192.0.2.1 dev eth0")
        (notified, change) = try glib.nextChange()
        #expect(Set(notified) == ["network-available", "network-metered", "connectivity"])
        #expect(notified.count == 3)
        #expect(change.argument == false)
        #expect(change.properties == Properties(available: false, metered: false, connectivity: "local"))

        try scenario.namespace.ip("route add default via 192.0.2.1 dev eth0")
        (notified, change) = try glib.nextChange()
        #expect(notified.count == 3)
        #expect(change.properties == Properties(available: true, metered: true, connectivity: "full"))

        // Once per change: nothing else is pending once pathmond's subscribers have the last path.
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
        glib.send("state")
        let (skipped, state) = try glib.next(kind: "state")
        #expect(skipped.isEmpty, "\(skipped)")
        #expect(state.properties == change.properties)
    }

    @Test func canReachAnswersAsGLibsBaseMonitor() async throws {
        let scenario = try Self.start()
        defer { #expect(scenario.tearDown() == 0) }
        let glib = try Self.glib(scenario)
        defer { glib.stop() }
        #expect(try glib.next().type == "PathmondNetworkMonitor")

        // Literal addresses: no resolver involved. The path is IPv4 only.
        for verb in ["reach", "reach-async"] {
            glib.send("\(verb) 192.0.2.1 80")
            #expect(try glib.next(kind: verb).event.reachable == true)
            glib.send("\(verb) 2001:db8::1 80")
            let v6 = try glib.next(kind: verb).event
            #expect(v6.reachable == false)
            #expect(v6.error == "host-unreachable")
        }

        try scenario.namespace.ip("route del default via 192.0.2.1 dev eth0")
        #expect(try glib.nextChange().change.available == false)
        for verb in ["reach", "reach-async"] {
            glib.send("\(verb) 192.0.2.1 80")
            let reply = try glib.next(kind: verb).event
            #expect(reply.reachable == false)
            #expect(reply.error == "network-unreachable")
        }
    }

    @Test func fallsThroughToGLibsNetlinkBackendWhenPathmondIsAbsent() throws {
        let scenario = try Self.start()
        defer { _ = scenario.tearDown() }

        // No socket at all.
        let absent = try GLibMonitor(
            in: scenario.namespace, socketPath: scenario.daemon.directory.appending(path: "none/io.pathmond").path,
            directory: scenario.daemon.directory)
        defer { absent.stop() }
        let first = try absent.next()
        #expect(first.type == "GNetworkMonitorNetlink", "\(first)")

        // A socket file nobody listens on, as a crashed daemon leaves it.
        scenario.daemon.kill()
        let stale = try Self.glib(scenario)
        defer { stale.stop() }
        let second = try stale.next()
        #expect(second.type == "GNetworkMonitorNetlink", "\(second)")
    }

    @Test func fallsThroughWhenPathmondDoesNotAnswer() throws {
        let scenario = try Self.start()
        defer { #expect(scenario.tearDown() == 0) }
        // Stopped: connect and send succeed, the reply never comes. init() gives up on its own deadline.
        scenario.daemon.pause()
        defer { scenario.daemon.resume() }
        let glib = try Self.glib(scenario)
        defer { glib.stop() }
        let ready = try glib.next()
        #expect(ready.type == "GNetworkMonitorNetlink", "\(ready)")
    }

    @Test func reportsGLibsDefaultsWhilePathmondRestartsThenFollowsAgain() async throws {
        let scenario = try Self.start()
        defer { #expect(scenario.tearDown() == 0) }
        try pathctl(scenario, "set-constrained eth0")
        _ = try await scenario.client.log.nextPath { $0.isConstrained }
        let glib = try Self.glib(scenario)
        defer { glib.stop() }
        let ready = try glib.next()
        #expect(ready.type == "PathmondNetworkMonitor")
        #expect(ready.properties == Properties(available: true, metered: true, connectivity: "full"))

        #expect(scenario.daemon.stop() == 0)
        var (notified, change) = try glib.nextChange()
        #expect(notified == ["network-metered"])
        #expect(change.properties == Properties.defaults)

        // While pathmond is away the route goes; the restarted daemon's first path carries it.
        try scenario.namespace.ip("route del default via 192.0.2.1 dev eth0")
        try scenario.daemon.start()
        (notified, change) = try glib.nextChange()
        #expect(change.properties == Properties(available: false, metered: false, connectivity: "local"))

        try scenario.namespace.ip("route add default via 192.0.2.1 dev eth0")
        (notified, change) = try glib.nextChange()
        #expect(change.properties == Properties(available: true, metered: true, connectivity: "full"))
    }
}
