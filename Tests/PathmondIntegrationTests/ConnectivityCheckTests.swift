// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathMonitor
import PathProtocol
import Testing

/// pathmond's own connectivity check end to end: the real daemon asks the real `pathmond-probe` (listening on a
/// socket of its own, as systemd's socket would), which sends an HTTP request out of eth0 to a server on the far
/// side of the veth. A redirect is a portal (`pathctl check --unmetered` exits 4, GLib hears PORTAL), the expected
/// text is open, a server that is gone is limited; `enabled = no` sends nothing.
@Suite(
    .serialized,
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") && getuid() == 0))
struct ConnectivityCheckTests {
    static let serverAddress = "10.40.0.1"
    static func configuration(enabled: String = "yes") -> String {
        """
        [connectivity]
        uri = http://\(serverAddress)/nm
        response = NetworkManager is online
        interval = 2s
        enabled = \(enabled)
        """
    }

    struct Setting {
        let scenario: Scenario
        let probe: ConnectivityProbeSetting

        init(
            configuration: String = ConnectivityCheckTests.configuration(), mode: String = "portal",
            probeSocket: String? = nil, prepare: (NetworkNamespace) throws -> Void = { _ in }
        ) throws {
            let probe = try ConnectivityProbeSetting()
            try probe.setMode(mode)
            do {
                scenario = try Scenario.start(
                    configuration: configuration,
                    arguments: ["--no-system-bus", "--connectivity-probe", probeSocket ?? probe.probeSocket]
                ) { namespace in
                    try namespace.addVeth("eth0", peer: "eth0-peer")
                    try namespace.farIP("address add \(ConnectivityCheckTests.serverAddress)/24 dev eth0-peer")
                    try namespace.ip("address add 10.40.0.57/24 dev eth0")
                    try namespace.ip("route add default via \(ConnectivityCheckTests.serverAddress) dev eth0")
                    try prepare(namespace)
                    try probe.start(
                        namespace: namespace.name, far: namespace.far, address: ConnectivityCheckTests.serverAddress)
                }
            } catch {
                probe.stop()
                throw error
            }
            self.probe = probe
        }

        func pathctl(_ arguments: [String]) throws -> CommandResult {
            try runCommand([product("pathctl")] + arguments + ["--socket", scenario.daemon.socketPath], check: false)
        }

        func tearDown() {
            #expect(scenario.tearDown() == 0)
            probe.stop()
        }
    }

    /// Behind the portal: captive, `check --unmetered` exits 4 and says so, the status table names it; once the
    /// network answers the expected text (the user signed in), the next check finds it open and the gate passes.
    @Test func aRedirectIsAPortalUntilTheExpectedAnswerComes() async throws {
        let setting = try Setting()
        defer { setting.tearDown() }
        let log = setting.scenario.client.log
        let captive = try await log.nextPath("captive from the redirect") { $0.captivePortal == .captive }
        #expect(captive.availableInterfaces.first { $0.name == "eth0" }?.captivePortal == .captive)
        let check = try setting.pathctl(["check", "--unmetered"])
        #expect(check.status == 4, "\(check.output)\(check.errorOutput)")
        let status = try setting.pathctl(["status", "--no-pager"]).output
        #expect(status.contains("captive portal"), "\(status)")
        let daemonLog = setting.scenario.daemon.log
        #expect(
            daemonLog.split(separator: "\n").contains {
                $0.contains("connectivity checked") && $0.contains("eth0") && $0.contains("captive")
                    && $0.contains("http://portal.example/login")
            }, "\(daemonLog)")
        let history = try setting.pathctl(["log", "--no-pager"]).output
        #expect(history.contains("captive portal"), "\(history)")

        try setting.probe.setMode("open")
        _ = try await log.nextPath("open once the network answers") { $0.captivePortal == .open }
        #expect(try setting.pathctl(["check", "--unmetered"]).status == 0)
        // Each request left by eth0 with the probe's own User-Agent, asking the configured path.
        #expect(setting.probe.requests.count >= 2)
        #expect(
            setting.probe.requests.allSatisfy { $0 == "/nm pathmond connectivity check" }, "\(setting.probe.requests)")
    }

    /// Another answer than the expected text is a portal too (a sign-in page served in place); a server that
    /// stops answering makes the network limited, which holds nothing back.
    @Test func aWrongAnswerIsAPortalAndNoAnswerIsLimited() async throws {
        let setting = try Setting(mode: "html")
        defer { setting.tearDown() }
        let log = setting.scenario.client.log
        _ = try await log.nextPath("captive from a sign-in page") { $0.captivePortal == .captive }
        // The server's address goes away: the request is refused at once (no route to it): no answer.
        try setting.scenario.namespace.farIP("address del \(Self.serverAddress)/24 dev eth0-peer")
        try setting.scenario.namespace.farIP("address add 10.40.0.2/24 dev eth0-peer")
        let limited = try await log.nextPath(timeout: .seconds(40), "limited without an answer") {
            $0.captivePortal == .limited
        }
        #expect(limited.status == .satisfied)
        #expect(try setting.pathctl(["check", "--unmetered"]).status == 0)
        let status = try setting.pathctl(["status", "--no-pager"]).output
        #expect(status.contains("limited connectivity"), "\(status)")
    }

    /// Each interface is asked out of itself, whatever the routing prefers: a host route sends the server's address
    /// out of eth1 to a gateway that is not there, yet eth0's check reaches the server (captive), and eth1's, bound
    /// to eth1, gets no answer (limited).
    @Test func eachInterfaceIsCheckedOutOfItself() async throws {
        let setting = try Setting { namespace in
            try namespace.addVeth("eth1", peer: "eth1-peer")
            try namespace.farIP("address add 10.50.0.1/24 dev eth1-peer")
            try namespace.ip("address add 10.50.0.57/24 dev eth1")
            try namespace.ip("route add default via 10.50.0.1 dev eth1 metric 200")
            try namespace.ip("route add \(ConnectivityCheckTests.serverAddress)/32 via 10.50.0.99 dev eth1")
        }
        defer { setting.tearDown() }
        let path = try await setting.scenario.client.log.nextPath(timeout: .seconds(40), "eth0 captive, eth1 limited") {
            let states = Dictionary(uniqueKeysWithValues: $0.availableInterfaces.map { ($0.name, $0.captivePortal) })
            return states["eth0"] == .captive && states["eth1"] == .limited
        }
        #expect(path.captivePortal == .captive, "a captive interface decides the path's state")
    }

    /// No probe where pathmond looks (not installed, its socket stopped): said once at notice, tried again quietly
    /// with a backoff (5 s, then 10 s), the state unknown and the server never asked.
    @Test func aMissingProbeIsSaidOnceAndChangesNothing() async throws {
        let setting = try Setting(probeSocket: "/nonexistent/pathmond-probe.socket")
        defer { setting.tearDown() }
        _ = try await setting.scenario.client.log.nextPath { $0.status == .satisfied }
        let daemon = setting.scenario.daemon
        try await eventually("pathmond says the probe is missing") {
            daemon.log.contains("connectivity not checked: no probe at /nonexistent/pathmond-probe.socket")
        }
        // Past the first retry (5 s): still one line, nothing asked, nothing known.
        try await Task.sleep(for: .seconds(6))
        let lines = daemon.log.split(separator: "\n").filter { $0.contains("connectivity not checked") }
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first?.contains("retryIn=5s") == true, "\(lines)")
        #expect(setting.probe.requests.isEmpty)
        let path = try PathmondConnection(socketPath: daemon.socketPath).path()
        #expect(path.captivePortal == .unknown)
    }

    /// `enabled = no`: no request ever reaches the server, the state stays unknown.
    @Test func offSendsNothing() async throws {
        let setting = try Setting(configuration: Self.configuration(enabled: "no"))
        defer { setting.tearDown() }
        _ = try await setting.scenario.client.log.nextPath { $0.status == .satisfied }
        try await Task.sleep(for: .seconds(3))
        #expect(setting.probe.requests.isEmpty)
        let path = try PathmondConnection(socketPath: setting.scenario.daemon.socketPath).path()
        #expect(path.captivePortal == .unknown)
    }

    /// A GLib application hears PORTAL behind the portal, and LIMITED where nothing answers.
    @Test func glibHearsPortalAndLimited() async throws {
        let setting = try Setting()
        defer { setting.tearDown() }
        _ = try await setting.scenario.client.log.nextPath("captive") { $0.captivePortal == .captive }
        let glib = try GLibMonitor(
            in: setting.scenario.namespace, socketPath: setting.scenario.daemon.socketPath,
            directory: setting.scenario.daemon.directory)
        defer { glib.stop() }
        let ready = try glib.next()
        #expect(ready.event == "ready")
        #expect(ready.connectivity == "portal", "\(ready)")
        try setting.scenario.namespace.farIP("address del \(Self.serverAddress)/24 dev eth0-peer")
        try setting.scenario.namespace.farIP("address add 10.40.0.2/24 dev eth0-peer")
        let (_, change) = try glib.nextChange(timeout: .seconds(40))
        #expect(change.properties?.connectivity == "limited", "\(change)")
    }
}
