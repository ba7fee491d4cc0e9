// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Testing

/// `pathctl exec --while unmetered -- CMD`: the command runs on a cheap path, is stopped (state T) while the path
/// is expensive and runs again when it is cheap; with --stop it is ended and started anew; its exit status is
/// pathctl's; a SIGTERM to pathctl reaches it.
@Suite(.serialized) struct ExecTests {
    /// A wired uplink (cheap) and a cellular one (expensive, `ww*`) whose route takes over when eth0's goes.
    static func scenario() throws -> Scenario {
        try Scenario.start { namespace in
            try namespace.addWiredUplink(routed: true)
            try namespace.addVeth("wwan0", peer: "wwan0-peer")
            try namespace.ip("address add 203.0.113.10/24 dev wwan0")
            try namespace.ip("route add default via 203.0.113.1 dev wwan0 metric 500")
        }
    }

    static func makeExpensive(_ scenario: Scenario) throws {
        try scenario.namespace.ip("route del default via 192.0.2.1 dev eth0")
    }

    static func makeCheap(_ scenario: Scenario) throws {
        try scenario.namespace.ip("route add default via 192.0.2.1 dev eth0")
    }

    /// pathctl exec, started in the background.
    static func exec(_ scenario: Scenario, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(filePath: product("pathctl"))
        process.arguments = ["exec", "--socket", scenario.daemon.socketPath] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// The children of `pid` and their states (R, S, T, Z, ...), from /proc.
    static func children(of pid: Int32) -> [(pid: Int32, state: Character)] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        let children = tasks.flatMap { task -> [Int32] in
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            return text.split(separator: " ").compactMap { Int32($0) }
        }
        return children.compactMap { child in
            guard let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            return stat[stat.index(close, offsetBy: 2)...].first.map { (child, $0) }
        }
    }

    @Test func theCommandIsStoppedWhileExpensiveAndRunsAgainWhenCheap() async throws {
        let scenario = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied && !$0.isExpensive }
        let pathctl = try Self.exec(scenario, ["--while", "unmetered", "--", "sleep", "1000"])
        defer { if pathctl.isRunning { kill(pathctl.processIdentifier, SIGKILL) } }
        try await eventually("sleep runs") { Self.children(of: pathctl.processIdentifier).first?.state == "S" }
        let sleeper = try #require(Self.children(of: pathctl.processIdentifier).first?.pid)

        try Self.makeExpensive(scenario)
        try await eventually("sleep is stopped on the expensive path") {
            Self.children(of: pathctl.processIdentifier).first?.state == "T"
        }
        try Self.makeCheap(scenario)
        try await eventually("sleep runs again on the cheap path") {
            Self.children(of: pathctl.processIdentifier).first?.state == "S"
        }
        #expect(Self.children(of: pathctl.processIdentifier).first?.pid == sleeper, "the same process, continued")

        // Stopped again, then SIGTERM to pathctl: the command is woken, gets it, and its end is pathctl's.
        try Self.makeExpensive(scenario)
        try await eventually("stopped again") { Self.children(of: pathctl.processIdentifier).first?.state == "T" }
        pathctl.terminate()
        pathctl.waitUntilExit()
        #expect(pathctl.terminationStatus == 128 + SIGTERM)
        #expect(kill(sleeper, 0) != 0, "the command ended with pathctl")
    }

    @Test func withStopTheCommandIsEndedAndStartedAnew() async throws {
        let scenario = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied && !$0.isExpensive }
        let pathctl = try Self.exec(scenario, ["--while", "unmetered", "--stop", "--", "sleep", "1000"])
        defer { if pathctl.isRunning { kill(pathctl.processIdentifier, SIGKILL) } }
        try await eventually("sleep runs") { Self.children(of: pathctl.processIdentifier).count == 1 }
        let first = try #require(Self.children(of: pathctl.processIdentifier).first?.pid)

        try Self.makeExpensive(scenario)
        try await eventually("sleep ended on the expensive path") {
            Self.children(of: pathctl.processIdentifier).isEmpty
        }
        try Self.makeCheap(scenario)
        try await eventually("a new sleep on the cheap path") {
            Self.children(of: pathctl.processIdentifier).first.map { $0.pid != first && $0.state == "S" } == true
        }
    }

    @Test func theExitStatusIsTheCommands() async throws {
        let scenario = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
        let result = try runCommand(
            [
                product("pathctl"), "exec", "--socket", scenario.daemon.socketPath, "--while", "online", "--", "sh",
                "-c",
                "exit 7",
            ], check: false)
        #expect(result.status == 7, "\(result.errorOutput)")
        let missing = try runCommand(
            [
                product("pathctl"), "exec", "--socket", scenario.daemon.socketPath, "--while", "online", "--",
                "/nonexistent/command",
            ], check: false)
        #expect(missing.status == 127)
        #expect(missing.errorOutput.contains("cannot run /nonexistent/command"))
    }
}
