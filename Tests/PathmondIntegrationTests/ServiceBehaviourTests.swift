// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PathModel
import Testing

/// What a service manager relies on: SIGHUP reloads the configuration in the same process, a bad file keeps the
/// old one and says so at priority err, a socket passed by the manager is served, a socket path that is not a
/// socket is refused clearly, and past the client limit a client is told so instead of hanging.
@Suite(.serialized) struct ServiceBehaviourTests {
    static func wiredScenario(arguments: [String] = []) throws -> Scenario {
        try Scenario.start(arguments: arguments) { namespace in
            try namespace.addWiredUplink(routed: true)
        }
    }

    @Test func hangupReloadsTheConfigurationInTheSameProcess() async throws {
        let scenario = try Self.wiredScenario()
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.availableInterfaces.first?.kind == .wired }
        let pid = scenario.daemon.processID

        try scenario.daemon.rewriteConfiguration(Scenario.testConfiguration + "\n[interface eth0]\ntype = cellular\n")
        scenario.daemon.signal(SIGHUP)
        let path = try await scenario.client.log.nextPath("eth0 reclassified as cellular") {
            $0.availableInterfaces.first?.kind == .cellular
        }
        #expect(path.isExpensive, "cellular is expensive")
        #expect(scenario.daemon.processID == pid, "a reload is not a restart")
        try await eventually("the reload is logged") { scenario.daemon.log.contains("configuration reloaded") }
    }

    @Test func aBrokenConfigurationOnReloadKeepsTheOneInForce() async throws {
        let scenario = try Self.wiredScenario()
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.availableInterfaces.first?.kind == .wired }

        try scenario.daemon.rewriteConfiguration("[interface eth0\ntype = cellular\n")
        scenario.daemon.signal(SIGHUP)
        try await eventually("the reload failure is logged") {
            scenario.daemon.log.contains("configuration not reloaded")
        }
        #expect(scenario.daemon.isRunning)
        let now = try runCommand([product("pathctl"), "status", "--socket", scenario.daemon.socketPath]).output
        #expect(now.hasPrefix("Path: satisfied via eth0 (wired)"), "\(now)")
    }

    @Test func pastTheClientLimitAClientIsRefusedClearly() async throws {
        let scenario = try Self.wiredScenario(arguments: ["--max-clients", "4"])
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
        // The scenario's monitor holds one place; three more fill the limit.
        let held = try (0..<3).map { _ in try RawClient(socketPath: scenario.daemon.socketPath) }
        defer { held.forEach { $0.close() } }
        let answered = try held[2].call(#"{"method":"io.pathmond.GetPath","parameters":{}}"#)
        #expect(answered["error"] == nil)

        for _ in 0..<3 {
            let refused = try RawClient(socketPath: scenario.daemon.socketPath)
            defer { refused.close() }
            let reply = try #require(try refused.receive(timeout: .seconds(5)), "a refusal, not silence")
            #expect(reply["error"] as? String == "io.pathmond.LimitReached")
        }
        let refusalLines = scenario.daemon.log.split(separator: "\n").filter { $0.contains("client limit reached") }
        #expect(refusalLines.count == 1, "one line per episode, not per client")

        held[0].close()
        try await eventually("a place is free again") {
            let client = try RawClient(socketPath: scenario.daemon.socketPath)
            defer { client.close() }
            return try client.call(#"{"method":"io.pathmond.GetPath","parameters":{}}"#)["error"] == nil
        }
    }

    /// One user filling their share (here `nobody`, five connections against a share of three) is refused
    /// clearly, while root, held only to the total, is still answered.
    @Test func oneUserCannotLockOthersOut() async throws {
        let scenario = try Self.wiredScenario(arguments: ["--max-clients-per-user", "3"])
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
        let hold = """
            import socket, sys, time
            held, refused = [], 0
            for _ in range(5):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(sys.argv[1])
                s.settimeout(1.0)
                try:
                    if b"io.pathmond.LimitReached" in s.recv(4096): refused += 1
                except socket.timeout:
                    held.append(s)
            print(f"held {len(held)} refused {refused}", flush=True)
            time.sleep(3)
            """
        let socket = scenario.daemon.socketPath
        let script = """
            setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 -c '\(hold)' \(socket) &
            holder=$!
            sleep 1.5
            \(product("pathctl")) status --socket \(socket) | head -n 1
            wait $holder
            """
        let result = try runCommand(["bash", "-c", script], check: false)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("held 3 refused 2"), "\(result.output)\(result.errorOutput)")
        #expect(lines.contains { $0.hasPrefix("Path: satisfied via eth0") }, "root is still served: \(result.output)")
        let refusalLines = scenario.daemon.log.split(separator: "\n").filter { $0.contains("client limit reached") }
        #expect(refusalLines.count == 1, "one line per episode: \(refusalLines)")
    }

    /// A flood of protocol violations costs the log one line, not one per message (journald would drop the
    /// daemon's own lines past its rate limit); every offender is still answered and closed.
    @Test func aFloodOfBadMessagesCostsTheLogOneLine() async throws {
        let scenario = try Self.wiredScenario()
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
        for _ in 0..<200 {
            let client = try RawClient(socketPath: scenario.daemon.socketPath)
            defer { client.close() }
            try client.send(Array("this is not JSON\0".utf8))
            let reply = try #require(try client.receive(timeout: .seconds(5)))
            #expect(reply["error"] as? String == "io.pathmond.ProtocolError")
        }
        let lines = scenario.daemon.log.split(separator: "\n").filter { $0.contains("broke the protocol") }
        #expect(lines.count == 1, "\(lines.count) lines")
    }

    @Test func aFileAtTheSocketPathIsReportedNotDeleted() throws {
        let namespace = try NetworkNamespace()
        defer { namespace.delete() }
        let daemon = try Daemon(in: namespace)
        defer { daemon.cleanUp() }
        #expect(FileManager.default.createFile(atPath: daemon.socketPath, contents: Data("precious".utf8)))
        #expect(throws: DaemonError.self) { try daemon.start(timeout: .seconds(3)) }
        #expect(daemon.log.contains("is not a socket"), "\(daemon.log)")
        #expect(try String(contentsOfFile: daemon.socketPath, encoding: .utf8) == "precious")
    }

    /// systemd-socket-activate listens the way a .socket unit does and starts pathmond on the first connection,
    /// passing the socket (LISTEN_FDS): the client that triggered the start is answered.
    @Test func aSocketPassedBySystemdIsServed() throws {
        let namespace = try NetworkNamespace()
        defer { namespace.delete() }
        try namespace.addWiredUplink(routed: true)
        let daemon = try Daemon(in: namespace)
        defer { daemon.cleanUp() }
        // One shell runs the activator and the client, so the activator (which becomes pathmond) is always
        // stopped, and the client is bounded in time.
        let script = """
            \(namespace.exec.joined(separator: " ") ) systemd-socket-activate --listen \(daemon.socketPath) \
                \(product("pathmond")) --socket \(daemon.socketPath) --state-dir \(daemon.stateDirectory) \
                --resolv-conf \(daemon.resolvConfPath) >\(daemon.logPath) 2>&1 &
            activator=$!
            for i in $(seq 100); do [ -S \(daemon.socketPath) ] && break; sleep 0.05; done
            timeout 20 \(product("pathctl")) status --socket \(daemon.socketPath); status=$?
            kill $activator; wait $activator
            exit $status
            """
        let result = try runCommand(["bash", "-c", script], check: false)
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.hasPrefix("Path: satisfied via eth0"), "\(result.output)")
        #expect(daemon.log.contains("listening on the socket systemd passed"), "\(daemon.log)")
    }
}

/// The configuration file is read as safely as the state files: a FIFO or /dev/zero in its place is refused at
/// once with a sentence, never a hang or an exhausted memory.
@Suite(.serialized) struct ConfigurationFileSafetyTests {
    @Test(arguments: ["fifo", "zero"]) func aHostileConfigurationFileIsRefusedAtOnce(kind: String) throws {
        let namespace = try NetworkNamespace()
        defer { namespace.delete() }
        let daemon = try Daemon(in: namespace)
        defer { daemon.cleanUp() }
        let path = daemon.directory.appending(path: "hostile.conf").path
        if kind == "fifo" { #expect(mkfifo(path, 0o600) == 0) } else { #expect(symlink("/dev/zero", path) == 0) }
        let result = try runCommand(
            namespace.exec + [
                "timeout", "20", product("pathmond"), "--config", path, "--socket", daemon.socketPath,
                "--state-dir", daemon.stateDirectory,
            ], check: false)
        #expect(result.status != 0 && result.status != 124, "refused, not hung: \(result.status)")
        #expect(result.errorOutput.contains("cannot read the configuration file"), "\(result.errorOutput)")
    }
}
