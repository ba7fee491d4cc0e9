// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Testing

/// `pathctl exec --while unmetered -- CMD`: the command runs on a cheap path, is stopped (state T) while the path
/// is expensive and runs again when it is cheap; with --stop it is ended and started anew, unless it exits by
/// itself; its exit status is pathctl's; a SIGTERM to pathctl reaches it. A flap shorter than the grace time stops
/// nothing. Tests of what follows a change run undamped (`--settle 0 --grace 0`).
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

    /// Every change counts at once.
    static let undamped = ["--settle", "0", "--grace", "0"]

    @Test func theCommandIsStoppedWhileExpensiveAndRunsAgainWhenCheap() async throws {
        let scenario = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied && !$0.isExpensive }
        let pathctl = try Self.exec(scenario, Self.undamped + ["--while", "unmetered", "--", "sleep", "1000"])
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
        let pathctl = try Self.exec(
            scenario, Self.undamped + ["--while", "unmetered", "--stop", "--", "sleep", "1000"])
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
            [product("pathctl"), "exec", "--socket", scenario.daemon.socketPath] + Self.undamped
                + ["--while", "online", "--", "sh", "-c", "exit 7"], check: false)
        #expect(result.status == 7, "\(result.errorOutput)")
        let missing = try runCommand(
            [product("pathctl"), "exec", "--socket", scenario.daemon.socketPath] + Self.undamped
                + ["--while", "online", "--", "/nonexistent/command"], check: false)
        #expect(missing.status == 127)
        #expect(missing.errorOutput.contains("cannot run /nonexistent/command"))
    }

    /// A one-second flap to the expensive path and back, with the default times (3 s settle, 30 s grace, the
    /// system policy's): the command is never stopped (or, with --stop, never ended), where it once was 13 ms
    /// after the flip.
    @Test(arguments: [[], ["--stop"]])
    func aFlapShorterThanTheGraceStopsNothing(_ flags: [String]) async throws {
        let scenario = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied && !$0.isExpensive }
        let pathctl = try Self.exec(scenario, ["--while", "unmetered"] + flags + ["--", "sleep", "1000"])
        defer { if pathctl.isRunning { kill(pathctl.processIdentifier, SIGKILL) } }
        try await eventually("sleep runs after the settle time") {
            Self.children(of: pathctl.processIdentifier).first?.state == "S"
        }
        let sleeper = try #require(Self.children(of: pathctl.processIdentifier).first?.pid)

        try Self.makeExpensive(scenario)
        _ = try await scenario.client.log.nextPath { $0.isExpensive }
        var states: [Character] = []
        let back = ContinuousClock.now + .seconds(1)
        while ContinuousClock.now < back {
            states += Self.children(of: pathctl.processIdentifier).map(\.state)
            try await Task.sleep(for: .milliseconds(20))
        }
        try Self.makeCheap(scenario)
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied && !$0.isExpensive }
        let settled = ContinuousClock.now + .seconds(1)
        while ContinuousClock.now < settled {
            states += Self.children(of: pathctl.processIdentifier).map(\.state)
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(!states.isEmpty && states.allSatisfy { $0 == "S" }, "\(states)")
        #expect(Self.children(of: pathctl.processIdentifier).map(\.pid) == [sleeper], "the same command throughout")
    }

    /// With --stop, a command that exits on pathctl's SIGTERM without being killed by it (status 0, or 3) has
    /// finished: pathctl exits with its status and never starts it again, where it once started it afresh.
    @Test(arguments: [Int32(0), 3])
    func withStopACommandThatExitsOnTheSignalHasFinished(_ status: Int32) async throws {
        let scenario = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied && !$0.isExpensive }
        let runs = FileManager.default.temporaryDirectory.appending(path: "pathmond-exec-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: runs) }
        let script = "trap 'exit \(status)' TERM; echo run >> \"$0\"; while :; do sleep 0.1; done"
        let pathctl = try Self.exec(
            scenario, Self.undamped + ["--while", "unmetered", "--stop", "--", "sh", "-c", script, runs])
        defer { if pathctl.isRunning { kill(pathctl.processIdentifier, SIGKILL) } }
        try await eventually("the command runs") { FileManager.default.fileExists(atPath: runs) }

        try Self.makeExpensive(scenario)
        try await eventually("pathctl ends with the command") { !pathctl.isRunning }
        #expect(pathctl.terminationStatus == status)
        try Self.makeCheap(scenario)
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied && !$0.isExpensive }
        #expect(try String(contentsOfFile: runs, encoding: .utf8) == "run\n", "run once")
    }
}
