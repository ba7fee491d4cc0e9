// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// pathctl and pathmond act on the argv they were started with, not on /proc/self/cmdline (issue 39): with a /proc
/// that is not the caller's (an empty tmpfs over it, as a chroot or build hook without /proc has), a mistyped verb
/// is still an error, `--socket` still names the socket, and a gate on an expensive path still says no.
@Suite(.serialized) struct ForeignProcTests {
    /// Runs `command` in a mount namespace of its own with an empty tmpfs over /proc, for at most ten seconds: a
    /// pathmond that lost its arguments would serve the default socket for ever.
    static func withoutProc(_ command: [String]) throws -> CommandResult {
        let script = "mount -t tmpfs none /proc && exec timeout 10 \"$@\""
        return try runCommand(
            ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", script, "sh"] + command, check: false)
    }

    @Test func pathctlReadsItsOwnArguments() throws {
        let version = try Self.withoutProc([product("pathctl"), "--version"])
        #expect(version.status == 0, "\(version.errorOutput)")
        #expect(version.output == "0.1.0\n", "the version, not a status table: \(version.output)")

        let typo = try Self.withoutProc([product("pathctl"), "stauts"])
        #expect(typo.status == 64, "a mistyped verb is a usage error: \(typo.output)\(typo.errorOutput)")
        #expect(typo.errorOutput.contains("stauts"), "\(typo.errorOutput)")

        let nowhere = "/tmp/pmit-absent-\(getpid())/io.pathmond"
        let check = try Self.withoutProc([product("pathctl"), "check", "--unmetered", "--socket", nowhere])
        #expect(check.status == 69, "the socket it was given, where nothing listens: \(check.errorOutput)")
        #expect(check.errorOutput.contains(nowhere), "\(check.errorOutput)")
    }

    @Test func aGateOnAnExpensivePathSaysNoWithoutProc() async throws {
        let scenario = try CheckWaitTests.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        let socket = scenario.daemon.socketPath
        #expect(try runCommand([product("pathctl"), "set-expensive", "wlan0", "--socket", socket]).status == 0)
        _ = try await scenario.client.log.nextPath { $0.isExpensive }

        let gate = try Self.withoutProc([product("pathctl"), "check", "--unmetered", "--socket", socket])
        #expect(gate.status == 2, "expensive: \(gate.output)\(gate.errorOutput)")
        #expect(gate.output.isEmpty, "no status table: \(gate.output)")
        #expect(gate.errorOutput.contains("expensive"), "\(gate.errorOutput)")
    }

    @Test func pathmondReadsItsOwnArguments() throws {
        let version = try Self.withoutProc([product("pathmond"), "--version"])
        #expect(version.status == 0 && version.output == "0.1.0\n", "\(version.output)\(version.errorOutput)")

        let directory = FileManager.default.temporaryDirectory.appending(path: "pmit-proc-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/pathmond.conf"
        try Data("[history]\nentries = ten\n".utf8).write(to: URL(filePath: file))
        let checked = try Self.withoutProc([product("pathmond"), "--check-config", file])
        #expect(checked.status == 78, "the file it was given, refused: \(checked.output)\(checked.errorOutput)")
        #expect(checked.errorOutput.hasPrefix("\(file):2: "), "\(checked.errorOutput)")
    }
}
