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
