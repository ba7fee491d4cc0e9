// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Testing

/// When pathmond refuses to start it says why once, at priority err, and touches nothing: a second daemon on the
/// same state directory leaves the first one's files alone, and a refused configuration file is named with its
/// line and an exit status that a unit does not restart on. `--check-config` answers the same question without
/// starting.
@Suite(.serialized) struct StartupRefusalTests {
    @Test func aSecondDaemonOnTheSameStateDirectoryWritesNothing() async throws {
        let scenario = try ServiceBehaviourTests.wiredScenario()
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
        let state = scenario.daemon.stateDirectory
        try await eventually("the first daemon wrote its history") {
            FileManager.default.fileExists(atPath: state + "/history.jsonl")
        }
        let before = try stateFiles(state)

        // Bounded: a second daemon that is not refused would serve for ever (and fail the test with status 124).
        let second = try runCommand(
            ["timeout", "10"] + scenario.namespace.exec + [
                product("pathmond"), "--socket", scenario.daemon.directory.appending(path: "second").path,
                "--state-dir", state, "--no-system-bus",
            ], check: false)
        #expect(second.status == 1, "\(second.errorOutput)")
        #expect(second.errorOutput.contains("another pathmond is already using the state directory \(state)"))
        #expect(second.errorOutput.split(separator: "\n").count == 1, "one line: \(second.errorOutput)")
        #expect(try stateFiles(state) == before, "the refused daemon changed the state directory")
        #expect(scenario.daemon.isRunning)
    }

    @Test func aRefusedConfigurationIsOneErrorLineWithFileAndLine() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/pathmond.conf"
        try Data("[history]\nentries = 10\n\n[history]\nentries = 20\n".utf8).write(to: URL(filePath: file))

        let started = try runCommand(
            [
                product("pathmond"), "--config", file, "--socket", directory + "/socket", "--state-dir",
                directory + "/state", "--no-system-bus",
            ], check: false)
        #expect(started.status == 78)
        let lines = started.errorOutput.split(separator: "\n")
        #expect(lines.count == 1, "one line, no usage text: \(started.errorOutput)")
        #expect(
            lines.first?.contains("error: configuration refused, not starting: \(file):4: [history] appears") == true)
        #expect(!FileManager.default.fileExists(atPath: directory + "/state"), "nothing written before the check")

        let checked = try runCommand([product("pathmond"), "--check-config", file], check: false)
        #expect(checked.status == 78)
        #expect(checked.errorOutput.hasPrefix("\(file):4: "), "\(checked.errorOutput)")

        try Data("[history]\nentries = 10\n".utf8).write(to: URL(filePath: file))
        let accepted = try runCommand([product("pathmond"), "--check-config", "--config", file], check: false)
        #expect(accepted.status == 0, "\(accepted.errorOutput)")
        #expect(accepted.output == "\(file): accepted\n")
    }

    /// Every file in the state directory with its bytes.
    private func stateFiles(_ directory: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            files[name] = try Data(contentsOf: URL(filePath: directory + "/" + name))
        }
        return files
    }

    private func temporaryDirectory() throws -> String {
        let path = "/tmp/pmsr-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

/// A configuration refused under socket activation (issue 39): pathmond keeps the socket it was passed and answers
/// every client with the refusal, instead of exiting and leaving the socket unit to start it again per client until
/// systemd's start limit fails the socket; a reload that finds the file fixed serves on the same socket at once.
@Suite(.serialized) struct RefusedConfigurationSocketTests {
    @Test func theSocketIsHeldAndAnsweredUntilAReloadFindsTheFileFixed() throws {
        let namespace = try NetworkNamespace()
        defer { namespace.delete() }
        try namespace.addWiredUplink(routed: true)
        let daemon = try Daemon(in: namespace)
        defer { daemon.cleanUp() }
        let file = daemon.directory.appending(path: "pathmond.conf").path
        try Data("[history]\nentries = ten\n".utf8).write(to: URL(filePath: file))
        let pathctl = "timeout 20 \(product("pathctl")) --socket \(daemon.socketPath)"
        // One shell runs the activator (which becomes pathmond on the first connection) and the clients, so pathmond
        // is always stopped and every client is bounded in time.
        let script = """
            \(namespace.exec.joined(separator: " ")) systemd-socket-activate --listen \(daemon.socketPath) \
                \(product("pathmond")) --config \(file) --socket \(daemon.socketPath) \
                --state-dir \(daemon.stateDirectory) --resolv-conf \(daemon.resolvConfPath) --no-system-bus \
                >\(daemon.logPath) 2>&1 &
            activator=$!
            for i in $(seq 100); do [ -S \(daemon.socketPath) ] && break; sleep 0.05; done
            for client in 1 2 3 4 5 6; do \(pathctl) check --unmetered; echo "client $client: $?"; done
            kill -0 $activator && echo "still running"
            printf '[history]\\nentries = 10\\n\\n[history]\\n' >\(file)
            kill -HUP $activator; sleep 0.5
            \(pathctl) status; echo "still refused: $?"
            printf '[history]\\nentries = 10\\n' >\(file)
            kill -HUP $activator
            \(pathctl) status; echo "fixed: $?"
            kill $activator; wait $activator; echo "stopped: $?"
            """
        let result = try runCommand(["bash", "-c", script], check: false)
        let lines = result.output.split(separator: "\n").map(String.init)
        for client in 1...6 { #expect(lines.contains("client \(client): 69"), "\(result.output)") }
        #expect(
            result.errorOutput.contains("pathctl: pathmond refuses its configuration: \(file):2: "),
            "\(result.errorOutput)")
        #expect(lines.contains("still running"), "pathmond left the socket: \(daemon.log)")
        #expect(lines.contains("still refused: 69"), "\(result.output)")
        #expect(result.errorOutput.contains("\(file):4: "), "the new refusal is the one answered")
        #expect(lines.contains("fixed: 0"), "\(result.output)\(result.errorOutput)\(daemon.log)")
        #expect(lines.contains { $0.hasPrefix("Path: satisfied via eth0") }, "\(result.output)")
        #expect(lines.contains("stopped: 0"), "\(result.output)")
        #expect(daemon.log.contains("configuration refused, not serving"), "\(daemon.log)")
        #expect(daemon.log.contains("configuration accepted on reload"), "\(daemon.log)")
    }
}
