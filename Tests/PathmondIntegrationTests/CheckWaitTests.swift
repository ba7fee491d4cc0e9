// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import Testing

/// `pathctl check` and `pathctl wait`, the gates for units and scripts: every condition's exit status with the
/// daemon there and absent, and `wait` returning on the change that meets its condition.
@Suite(.serialized) struct CheckWaitTests {
    static func scenario() throws -> Scenario {
        try Scenario.start(
            configuration: LowDataModeTests.configuration(ssid: "Cafe"), prepare: LowDataModeTests.wifiUplink)
    }

    func pathctl(_ scenario: Scenario, _ arguments: [String]) throws -> CommandResult {
        try runCommand([product("pathctl")] + arguments + ["--socket", scenario.daemon.socketPath], check: false)
    }

    @Test func checkExitStatusesFollowThePath() async throws {
        let scenario = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        let log = scenario.client.log
        _ = try await log.nextPath { $0.status == .satisfied }
        #expect(try pathctl(scenario, ["check"]).status == 0)
        #expect(try pathctl(scenario, ["check", "--unmetered"]).status == 0)
        #expect(try pathctl(scenario, ["check", "--require", "wifi"]).status == 0)
        #expect(try pathctl(scenario, ["check", "--require", "wired"]).status == 1, "no wired interface")

        #expect(try pathctl(scenario, ["set-expensive", "wlan0"]).status == 0)
        _ = try await log.nextPath { $0.isExpensive }
        let expensive = try pathctl(scenario, ["check", "--unmetered"])
        #expect(expensive.status == 2)
        #expect(expensive.errorOutput.contains("expensive"))
        #expect(try pathctl(scenario, ["check", "--not-constrained"]).status == 0, "expensive is not constrained")
        #expect(try pathctl(scenario, ["check", "--unmetered", "--quiet"]).errorOutput.isEmpty)

        #expect(try pathctl(scenario, ["set-expensive", "wlan0", "--off"]).status == 0)
        #expect(try pathctl(scenario, ["set-constrained", "wlan0"]).status == 0)
        _ = try await log.nextPath { $0.isConstrained && !$0.isExpensive }
        #expect(try pathctl(scenario, ["check", "--not-constrained"]).status == 3)
        #expect(try pathctl(scenario, ["check", "--unmetered"]).status == 3)
        #expect(try pathctl(scenario, ["check"]).status == 0)

        try scenario.namespace.ip("route del default dev wlan0")
        _ = try await log.nextPath { $0.status == .unsatisfied }
        let unsatisfied = try pathctl(scenario, ["check"])
        #expect(unsatisfied.status == 1)
        #expect(unsatisfied.errorOutput.contains("unsatisfied"))
    }

    /// Issue 41: a gate makes one call, GetPath. Inside the daemon's namespace and outside it (where it warns), root's
    /// pathctl compares the namespaces through /proc rather than asking GetStatus.
    @Test func checkMakesOneCall() async throws {
        guard (try? runCommand(["sh", "-c", "command -v strace"], check: false).status) == 0 else { return }
        let scenario = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
        let trace = "/tmp/pmit-check-trace-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: trace) }
        for prefix in [scenario.namespace.exec, []] {
            let result = try runCommand(
                prefix + [
                    "strace", "-f", "-qq", "-s", "200", "-e", "trace=sendto,sendmsg,write", "-o", trace,
                    product("pathctl"), "check", "--unmetered", "--socket", scenario.daemon.socketPath,
                ], check: false)
            #expect(result.status == 0, "\(result.errorOutput)")
            #expect(result.errorOutput.contains("different network namespace") == prefix.isEmpty)
            let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
                .filter { $0.contains("\\\"method\\\":") }
            #expect(calls.count == 1 && calls.allSatisfy { $0.contains("io.pathmond.GetPath") }, "\(calls)")
        }
    }

    @Test func checkWithoutTheDaemonSkipsRatherThanFails() throws {
        let missing = "/tmp/pmit-absent-\(getpid())/io.pathmond"
        let result = try runCommand([product("pathctl"), "check", "--unmetered", "--socket", missing], check: false)
        #expect(result.status == 69)
        #expect(result.errorOutput.contains("not running"))
        #expect(try runCommand([product("pathctl"), "check", "--bogus"], check: false).status != 255)
    }

    @Test func waitReturnsWhenTheConditionBecomesTrue() async throws {
        let scenario = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        let log = scenario.client.log
        _ = try await log.nextPath { $0.status == .satisfied }
        #expect(try pathctl(scenario, ["set-expensive", "wlan0"]).status == 0)
        _ = try await log.nextPath { $0.isExpensive }

        let waiting = try StreamingProcess(
            [product("pathctl"), "wait", "--unmetered", "--timeout", "30", "--socket", scenario.daemon.socketPath])
        // Still waiting while the path is expensive.
        try await Task.sleep(for: .milliseconds(300))
        #expect(waiting.exitStatus == nil, "wait returned while the path was expensive")
        #expect(try pathctl(scenario, ["set-expensive", "wlan0", "--off"]).status == 0)
        #expect(try await waiting.waitForExit(timeout: .seconds(10)) == 0)
    }

    @Test func waitTimesOutWithTheReason() async throws {
        let scenario = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
        let result = try pathctl(scenario, ["wait", "--require", "wired", "--timeout", "0.5"])
        #expect(result.status == 1)
        #expect(result.errorOutput.contains("timed out"))
        let never = try runCommand(
            [product("pathctl"), "wait", "--timeout", "0.3", "--socket", "/tmp/pmit-absent-\(getpid())/x"],
            check: false)
        #expect(never.status == 69)
    }
}

/// A child process whose exit is awaited with a deadline.
final class StreamingProcess: @unchecked Sendable {
    // @unchecked: `process` is set in init and never replaced; Process is thread-safe.
    private let process = Process()

    init(_ arguments: [String]) throws {
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// The exit status, or nil while it runs.
    var exitStatus: Int32? { process.isRunning ? nil : process.terminationStatus }

    /// Waits for the exit; kills the process and returns nil at the deadline.
    func waitForExit(timeout: Duration) async throws -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        guard !process.isRunning else {
            process.terminate()
            return nil
        }
        return process.terminationStatus
    }

    deinit { if process.isRunning { process.terminate() } }
}
