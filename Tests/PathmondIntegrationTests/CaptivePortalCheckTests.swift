// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathMonitor
import PathProtocol
import Testing

/// The optional RFC 8908 check end to end: systemd-networkd's link state file names a portal API on a real HTTPS
/// server across the namespace's veth (a test CA made with openssl), pathmond asks the real `pathmond-probe --listen`
/// in its namespace (which alone sends the request) because the configuration says `check-api = true`, and the path
/// follows the answers; refused and failing checks, and a missing probe, leave the path as it was while the daemon
/// keeps answering.
@Suite(
    .serialized,
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") && getuid() == 0))
struct CaptivePortalCheckTests {
    static let configuration = """
        [interface wlan*]
        type = wifi

        [captive-portal]
        check-api = true

        \(connectivityOff)
        """
    /// The portal's API alone decides: pathmond's own connectivity check would ask the same probe.
    static let connectivityOff = "[connectivity]\nenabled = no\n"
    static let serverAddress = "10.20.0.1"

    /// A namespace with wlan0 (its portal API server on the far side), the probe beside pathmond trusting the test
    /// CA (or, with `trustsTestCA` false, the system's store), or no probe where pathmond looks (`hasProbe` false).
    struct Setting {
        let scenario: Scenario
        let server: PortalAPIServer
        let probe: ProbeProcess
        let links: String
        let index: Int32

        init(
            configuration: String = CaptivePortalCheckTests.configuration, trustsTestCA: Bool = true,
            hasProbe: Bool = true
        ) async throws {
            let links = FileManager.default.temporaryDirectory.appending(path: "pathmond-links-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: links, withIntermediateDirectories: true)
            self.links = links.path
            let server = try PortalAPIServer(address: CaptivePortalCheckTests.serverAddress)
            let probe = ProbeProcess(directory: server.directory)
            let scenario: Scenario
            do {
                scenario = try Scenario.start(
                    configuration: configuration,
                    arguments: [
                        "--no-system-bus", "--networkd-links", links.path, "--connectivity-probe",
                        hasProbe ? probe.socket : "/nonexistent/pathmond-probe.socket",
                    ]
                ) { namespace in
                    try namespace.addVeth("wlan0", peer: "wlan0-peer")
                    try namespace.farIP("address add \(CaptivePortalCheckTests.serverAddress)/22 dev wlan0-peer")
                    try namespace.ip("address add 10.20.0.57/22 dev wlan0")
                    try namespace.ip("route add default via \(CaptivePortalCheckTests.serverAddress) dev wlan0")
                    try server.start(in: namespace.far)
                    if hasProbe {
                        try probe.start(namespace: namespace.name, caFile: trustsTestCA ? server.caFile : nil)
                    }
                }
            } catch {
                probe.stop()
                server.stop()
                throw error
            }
            self.probe = probe
            self.scenario = scenario
            self.server = server
            _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
            let connection = try PathmondConnection(socketPath: scenario.daemon.socketPath)
            index = try #require(try connection.interfaces().first { $0.name == "wlan0" }?.index)
        }

        /// What networkd would write after a DHCP lease with option 114.
        func announce(_ uri: String) throws {
            try Data("OPER_STATE=routable\nCAPTIVE_PORTAL=\(uri)\n".utf8)
                .write(to: URL(filePath: links + "/\(index)"), options: .atomic)
        }

        func tearDown() {
            #expect(scenario.tearDown() == 0)
            probe.stop()
            server.stop()
            try? FileManager.default.removeItem(atPath: links)
        }
    }

    /// Unknown while only announced; the API says captive with 2 s left; when they run out pathmond asks again,
    /// and the portal (the user signed in) says open.
    @Test func theAnswerDecidesAndIsAskedAgainWhenTheSessionRunsOut() async throws {
        let setting = try await Setting()
        defer { setting.tearDown() }
        let log = setting.scenario.client.log
        let uri = "https://\(Self.serverAddress)/api"
        try setting.server.setAnswer(
            #"{"captive": true, "seconds-remaining": 2, "user-portal-url": "https://10.20.0.1/portal"}"#)
        try setting.announce(uri)
        let captive = try await log.nextPath("captive from the API") { $0.captivePortal == .captive }
        #expect(captive.captivePortalURI == uri)
        #expect(
            captive.captivePortalAPI
                == CaptivePortalAPIStatus(
                    isCaptive: true, secondsRemaining: 2, userPortalURL: "https://10.20.0.1/portal"))
        #expect(captive.availableInterfaces.first?.captivePortal == .captive)
        let socket = setting.scenario.daemon.socketPath
        let json = try runCommand([product("pathctl"), "status", "--json", "--socket", socket]).output
        #expect(json.contains(#""captivePortalAPI":{"captive":true,"secondsRemaining":2"#), "\(json)")
        let check = try runCommand([product("pathctl"), "check", "--unmetered", "--socket", socket], check: false)
        #expect(check.status == 4)

        // The user signed in; nothing tells pathmond but the session's end, when it asks again.
        try setting.server.setAnswer(#"{"captive": false, "seconds-remaining": 3600, "bytes-remaining": 5000000}"#)
        let open = try await log.nextPath("open after the re-check") { $0.captivePortal == .open }
        #expect(
            open.captivePortalAPI
                == CaptivePortalAPIStatus(isCaptive: false, secondsRemaining: 3600, bytesRemaining: 5_000_000))
        #expect(setting.server.requests == ["/api", "/api"])
        #expect(
            try runCommand([product("pathctl"), "check", "--unmetered", "--socket", socket], check: false).status == 0)
        let status = try runCommand([product("pathctl"), "status", "--no-pager", "--socket", socket]).output
        #expect(status.contains("portal session 3600s left"), "\(status)")
    }

    /// Each way a check can go wrong is logged with its reason and changes nothing: the path keeps the announced
    /// URI and the unknown state, and pathmond keeps answering, even while a request stalls.
    @Test func refusedAndFailedChecksLeaveThePathAsItWas() async throws {
        let setting = try await Setting()
        defer { setting.tearDown() }
        let log = setting.scenario.client.log
        let daemon = setting.scenario.daemon
        let connection = try PathmondConnection(socketPath: daemon.socketPath)
        let cases: [(path: String, reason: String)] = [
            ("http://\(Self.serverAddress)/api", "not an https URI"),
            ("https://\(Self.serverAddress)/redirect", "a redirect (HTTP 302 to https://elsewhere.example/api)"),
            ("https://\(Self.serverAddress)/huge", "the answer is larger than 65536 bytes"),
            ("https://\(Self.serverAddress)/wrong-type", "content type text/html"),
            ("https://\(Self.serverAddress)/malformed", "not an RFC 8908 answer: not a JSON object"),
            // The certificate names 10.20.0.1: the same server under another address must fail verification.
            ("https://10.20.0.2/api", "certificate"),
            ("https://\(Self.serverAddress)/stall", "no answer within 5"),
        ]
        try setting.scenario.namespace.farIP("address add 10.20.0.2/22 dev wlan0-peer")
        for (uri, reason) in cases {
            try setting.announce(uri)
            let announced = try await log.nextPath("\(uri) announced") { $0.captivePortalURI == uri }
            #expect(announced.captivePortal == .unknown && announced.captivePortalAPI == nil)
            if uri.hasSuffix("/stall") {
                // The request is held open at the server: pathmond's loop must still answer.
                try await eventually("the stalled request reached the server") {
                    setting.server.requests.last == "/stall"
                }
                let path = try connection.path()
                #expect(path.captivePortalURI == uri && path.captivePortal == .unknown)
            }
            try await eventually(timeout: .seconds(15), "pathmond logs why \(uri) gave nothing") {
                daemon.log.split(separator: "\n").contains { $0.contains(uri) && $0.contains(reason) }
            }
            let path = try connection.path()
            #expect(path.captivePortal == .unknown && path.captivePortalAPI == nil, "\(uri)")
        }
        // The refused http URI was never requested.
        #expect(!setting.server.requests.contains("/api"))
    }

    /// A portal whose API is not up when its URI is announced (503 to the first request): pathmond asks again after
    /// its backoff, with no new announcement, and the path follows the answer.
    @Test func aFailedCheckIsTriedAgain() async throws {
        let setting = try await Setting()
        defer { setting.tearDown() }
        let uri = "https://\(Self.serverAddress)/flaky"
        try setting.server.setAnswer(#"{"captive": true}"#)
        try setting.announce(uri)
        let captive = try await setting.scenario.client.log.nextPath("captive from the second try") {
            $0.captivePortal == .captive
        }
        #expect(captive.captivePortalURI == uri)
        #expect(setting.server.requests == ["/flaky", "/flaky"])
        let daemon = setting.scenario.daemon
        #expect(
            daemon.log.split(separator: "\n").contains {
                $0.contains("check failed") && $0.contains("HTTP status 503") && $0.contains("retryIn=5s")
            }, "\(daemon.log)")
    }

    /// The request leaves by the interface whose network announced the portal, whatever the routing prefers: here
    /// a host route sends the server's address out of eth1, to a gateway that is not there, and only a request
    /// bound to wlan0 reaches the portal.
    @Test func theCheckLeavesByTheInterfaceThatAnnouncedThePortal() async throws {
        let setting = try await Setting()
        defer { setting.tearDown() }
        let namespace = setting.scenario.namespace
        try namespace.addVeth("eth1", peer: "eth1-peer")
        try namespace.farIP("address add 10.30.0.1/24 dev eth1-peer")
        try namespace.ip("address add 10.30.0.57/24 dev eth1")
        try namespace.ip("route add \(Self.serverAddress)/32 via 10.30.0.99 dev eth1")
        let uri = "https://\(Self.serverAddress)/api"
        try setting.announce(uri)
        let captive = try await setting.scenario.client.log.nextPath("captive, asked out of wlan0") {
            $0.captivePortal == .captive
        }
        #expect(captive.captivePortalURI == uri)
        #expect(setting.server.requests == ["/api"])
    }

    /// Off by default: an announced URI is shown and not asked. The reload that turns the check on asks it once;
    /// the one that turns it off forgets the answer.
    @Test func offByDefaultAndAReloadTurnsItOnAndOff() async throws {
        let passive = "[interface wlan*]\ntype = wifi\n" + Self.connectivityOff
        let setting = try await Setting(configuration: passive)
        defer { setting.tearDown() }
        let log = setting.scenario.client.log
        let daemon = setting.scenario.daemon
        let uri = "https://\(Self.serverAddress)/api"
        try setting.announce(uri)
        let announced = try await log.nextPath("the URI announced") { $0.captivePortalURI == uri }
        #expect(announced.captivePortal == .unknown && announced.captivePortalAPI == nil)

        try daemon.rewriteConfiguration(Self.configuration)
        daemon.signal(SIGHUP)
        let captive = try await log.nextPath("captive once the check is on") { $0.captivePortal == .captive }
        #expect(captive.captivePortalAPI == CaptivePortalAPIStatus(isCaptive: true))
        // Had the passive daemon asked, the server would have logged a request before this one.
        #expect(setting.server.requests == ["/api"])

        try daemon.rewriteConfiguration(passive)
        daemon.signal(SIGHUP)
        let forgotten = try await log.nextPath("unknown once it is off") { $0.captivePortal == .unknown }
        #expect(forgotten.captivePortalURI == uri && forgotten.captivePortalAPI == nil)
    }

    /// Without the test CA, pathmond verifies against the system's store, which does not know it: no answer.
    @Test func aCertificateTheSystemDoesNotTrustGivesNoAnswer() async throws {
        let setting = try await Setting(trustsTestCA: false)
        defer { setting.tearDown() }
        let uri = "https://\(Self.serverAddress)/api"
        try setting.announce(uri)
        let announced = try await setting.scenario.client.log.nextPath("the URI announced") {
            $0.captivePortalURI == uri
        }
        #expect(announced.captivePortal == .unknown)
        let daemon = setting.scenario.daemon
        try await eventually("pathmond logs the failed verification") {
            daemon.log.split(separator: "\n").contains {
                $0.contains("check failed") && $0.contains(uri) && $0.contains("certificate")
            }
        }
        let path = try PathmondConnection(socketPath: daemon.socketPath).path()
        #expect(path.captivePortal == .unknown && path.captivePortalAPI == nil)
        // The TLS handshake failed: the server never saw the request.
        #expect(setting.server.requests.isEmpty)
    }

    /// No probe where pathmond looks (not installed, its socket stopped): said once at notice, asked again after the
    /// backoff, the path as it was and the server never asked; pathmond answers throughout.
    @Test func aMissingProbeIsSaidOnceAndChangesNothing() async throws {
        let setting = try await Setting(hasProbe: false)
        defer { setting.tearDown() }
        let uri = "https://\(Self.serverAddress)/api"
        try setting.announce(uri)
        let daemon = setting.scenario.daemon
        let said = { daemon.log.split(separator: "\n").filter { $0.contains("no probe at /nonexistent") } }
        try await eventually("pathmond says the probe is missing") { !said().isEmpty }
        #expect(said().first?.contains("retryIn=5s") == true, "\(said())")
        #expect(said().first?.contains(uri) == true, "\(said())")
        // Past the first retry (5 s): asked again, still said once.
        try await Task.sleep(for: .seconds(6))
        #expect(said().count == 1, "\(said())")
        let path = try PathmondConnection(socketPath: daemon.socketPath).path()
        #expect(path.captivePortalURI == uri && path.captivePortal == .unknown && path.captivePortalAPI == nil)
        #expect(setting.server.requests.isEmpty)
    }
}
