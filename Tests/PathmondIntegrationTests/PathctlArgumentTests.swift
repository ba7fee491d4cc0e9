// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// pathctl's arguments as a user types them (issues 21 and 22): the help's own examples work, absurd numbers are
/// usage errors rather than traps, hidden characters never make a name, and Tab offers what a verb takes.
@Suite(.serialized) struct PathctlArgumentTests {
    static let nowhere = "/tmp/pmit-nonexistent/io.pathmond"

    static func pathctl(_ arguments: [String]) throws -> CommandResult {
        try runCommand(["env", "-u", "COLUMNS", product("pathctl")] + arguments, check: false)
    }

    /// A relative time begins with a dash; as an option's value it is still a value, however it is written. With
    /// no daemon to ask, a time pathctl accepted ends in 69 (unavailable), never 64 (usage).
    @Test(arguments: [
        ["log", "--since", "-1h"], ["log", "--since=-1h"], ["log", "-s", "-30min"],
        ["log", "--since", "-2d", "-n", "5"],
        ["log", "-n", "5", "--since", "-1h30min"], ["--socket", nowhere, "log", "--since", "-1w"],
    ])
    func theHelpsRelativeTimesAreAccepted(arguments: [String]) throws {
        let result = try Self.pathctl(arguments + ["--socket", Self.nowhere])
        #expect(result.status == 69, "\(arguments): \(result.errorOutput)")
        #expect(result.errorOutput.contains("pathmond is not running"), "\(result.errorOutput)")
    }

    @Test func theHelpStillShowsTheExample() throws {
        let help = try Self.pathctl(["log", "--help"])
        #expect(help.status == 0 && help.output.contains("\"-1h\""), "\(help.output)")
    }

    /// Every number a user gives is checked: out of range is a usage error (64) with a sentence, not a trap.
    @Test(arguments: [
        ["log", "--since=-999999999w"], ["log", "--since", "-999999999w999999999w999999999w"],
        ["log", "--since", "-99999999999999999999999s"], ["log", "--since", "@99999999999999999999"],
        ["log", "--since", "@9223372036854775807"], ["log", "--since", "-60000w"],
    ])
    func absurdTimesAreUsageErrors(arguments: [String]) throws {
        let result = try Self.pathctl(arguments + ["--socket", Self.nowhere])
        #expect(result.status == 64, "\(arguments): \(result.errorOutput)")
        #expect(result.errorOutput.contains("out of range"), "\(result.errorOutput)")
    }

    @Test(arguments: [
        ["log", "--lines", "99999999999999999999999"], ["log", "--lines", "-1"], ["wait", "--timeout", "1e300"],
        ["wait", "--timeout", "nan"], ["wait", "--timeout", "-1"], ["wait", "--timeout", "inf"],
        ["log", "--since", "yesterdayish"],
    ])
    func otherBadNumbersAreUsageErrors(arguments: [String]) throws {
        let result = try Self.pathctl(arguments + ["--socket", Self.nowhere])
        #expect(result.status == 64, "\(arguments): \(result.errorOutput)")
    }

    /// A name with a character people cannot see is refused before pathmond is asked.
    @Test(arguments: ["Off\u{202E}ice", "Office\u{200B}", "\u{FEFF}Office", "Off\u{2066}ice\u{2069}", "Off\u{1B}ice"])
    func namesWithHiddenCharactersAreRefused(name: String) throws {
        let result = try Self.pathctl(["name", "wired:02:00:00:00:00:01", name, "--socket", Self.nowhere])
        #expect(result.status == 64, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("invisible"), "\(result.errorOutput)")
    }

    /// The generated completion scripts ask pathctl back; it answers with this namespace's interfaces.
    @Test(arguments: [
        ["log", "--interface"], ["status", "--interface"], ["set-constrained", "positional@0"],
        ["set-expensive", "positional@0"], ["name", "positional@0"],
    ])
    func interfacesAreCompleted(verb: [String]) throws {
        let interfaces = try FileManager.default.contentsOfDirectory(atPath: "/sys/class/net").sorted()
        let result = try Self.pathctl(["---completion", verb[0], "--", verb[1], "2", "0", "pathctl", verb[0], ""])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.split(separator: "\n").map(String.init) == interfaces, "\(result.output)")
        let script = try Self.pathctl(["--generate-completion-script", "bash"])
        #expect(script.output.contains("---completion \(verb[0]) -- \(verb[1])"), "\(verb)")
    }

    /// bash runs the generated script as it would on Tab: verbs, options, option values and arguments, the
    /// interfaces through the call back.
    @Test(arguments: [
        (["pathctl", "se"], ["set-constrained", "set-ultra-constrained", "set-expensive", "set-limit"]),
        (["pathctl", "--socket", "/x", "chec"], ["check"]),
        (["pathctl", "check", "--unm"], ["--unmetered"]),
        (["pathctl", "wait", "--require", "w"], ["wired", "wifi"]),
        (["pathctl", "status", "--json", ""], ["short", "pretty", "off"]),
        (["pathctl", "help", "ne"], ["networks"]),
    ])
    func bashCompletesFromTheTables(words: [String], expected: [String]) throws {
        #expect(try Self.bashCompletion(words) == expected)
    }

    @Test func bashCompletesInterfacesThroughTheCallBack() throws {
        let interfaces = try FileManager.default.contentsOfDirectory(atPath: "/sys/class/net").sorted()
        #expect(try Self.bashCompletion(["pathctl", "log", "-i", ""]) == interfaces)
        #expect(try Self.bashCompletion(["pathctl", "name", ""]) == interfaces)
        // The name itself (the second argument) is free text.
        #expect(try Self.bashCompletion(["pathctl", "name", "eth0", ""]) == [])
    }

    @Test func zshAndFishReadTheirScripts() throws {
        for (shell, check) in [("zsh", ["zsh", "-n"]), ("fish", ["fish", "--no-execute"])] {
            // scripts/setup installs both: a missing shell is a set-up error, not a pass.
            #expect(
                (try? runCommand(["sh", "-c", "command -v \(shell)"], check: false).status) == 0,
                "\(shell) is not installed (scripts/setup installs it)")
            let script = try Self.pathctl(["--generate-completion-script", shell])
            let file = "/tmp/pmit-completion-\(getpid()).\(shell)"
            try Data(script.output.utf8).write(to: URL(filePath: file))
            defer { try? FileManager.default.removeItem(atPath: file) }
            let result = try runCommand(check + [file], check: false)
            #expect(result.status == 0, "\(shell): \(result.errorOutput)")
        }
    }

    /// The candidates bash's completion offers for `words` (the last one being completed), one a line.
    static func bashCompletion(_ words: [String]) throws -> [String] {
        let script = try pathctl(["--generate-completion-script", "bash"]).output
        let file = "/tmp/pmit-completion-\(getpid()).bash"
        try Data(script.utf8).write(to: URL(filePath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let line = words.dropFirst().map { "'\($0)'" }.joined(separator: " ")
        let program =
            "source \(file); COMP_WORDS=(\(product("pathctl")) \(line)); COMP_CWORD=\(words.count - 1); _pathctl;"
            + " printf '%s\\n' \"${COMPREPLY[@]}\""
        let output = try runCommand(["bash", "-c", program]).output
        return output.split(separator: "\n").map(String.init)
    }

    @Test func networkKeysAreCompletedFromPathmond() async throws {
        let scenario = try Scenario.start { namespace in try namespace.addWiredUplink(routed: true) }
        defer { #expect(scenario.tearDown() == 0) }
        let socket = scenario.daemon.socketPath
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
        let marked = try Self.pathctl(["set-constrained", "--key", "wifi:CompletionTest", "--socket", socket])
        #expect(marked.status == 0, "\(marked.errorOutput)")
        for verb in [["forget", "positional@0"], ["set-constrained", "--key"], ["name", "positional@0"]] {
            let result = try Self.pathctl([
                "---completion", verb[0], "--", verb[1], "4", "5", "pathctl", verb[0], "--socket", socket, "wifi:",
            ])
            #expect(result.status == 0, "\(result.errorOutput)")
            #expect(result.output.split(separator: "\n") == ["wifi:CompletionTest"], "\(verb): \(result.output)")
        }
        // Without a daemon there is nothing to offer, and nothing to complain about either.
        let none = try Self.pathctl([
            "---completion", "forget", "--", "positional@0", "4", "0", "pathctl", "forget", "--socket", Self.nowhere,
            "",
        ])
        #expect(none.status == 0 && none.output.isEmpty && none.errorOutput.isEmpty, "\(none.errorOutput)")
    }
}

/// The man pages: generate-manual's output finished by scripts/finish-manual (issue 21: pathmond(8) showed a
/// "subcommand", and neither page documented an exit status beyond "0 on success").
@Suite struct ManualTests {
    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The shape generate-manual gives a command without verbs, and one with.
    static let daemonPage = """
        .Sh SYNOPSIS
        .Nm
        .Ar subcommand
        .Op Fl -socket Ar socket
        .Sh DESCRIPTION
        .Bl -tag -width 6n
        .It Fl -socket Ar socket
        The socket.
        .It Em help
        Show subcommand help information.
        .Bl -tag -width 6n
        .It Ar subcommands...
        .It Fl -version
        Show the version.
        .El
        .El
        .Sh "EXIT STATUS"
        .Ex -std
        """
    static let verbsPage = """
        .Sh SYNOPSIS
        .Nm
        .Ar subcommand
        .Sh DESCRIPTION
        .Bl -tag -width 6n
        .It Em status
        Show.
        .It Em help
        Show subcommand help information.
        .Bl -tag -width 6n
        .It Ar subcommands...
        .El
        .El
        .Sh "EXIT STATUS"
        .Ex -std
        """

    func finish(_ page: String, with sections: String) throws -> String {
        let directory = "/tmp/pmit-manual-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try page.write(toFile: directory + "/page", atomically: true, encoding: .utf8)
        let result = try runCommand([
            Self.root.appending(path: "scripts/finish-manual").path, directory + "/page",
            Self.root.appending(path: sections).path,
        ])
        #expect(result.status == 0)
        return try String(contentsOfFile: directory + "/page", encoding: .utf8)
    }

    /// pathmond(8) is written by hand now (pathmondTests hold it to the daemon's options); the script still
    /// finishes a generated page of a command without verbs.
    @Test func aPageWithoutVerbsLosesTheSubcommandAndGetsItsExitStatuses() throws {
        let page = try finish(Self.daemonPage, with: "docs/man/pathctl.1.exit")
        #expect(!page.contains("subcommand") && !page.contains(".Ex -std"), "\(page)")
        #expect(page.contains(".It Fl -socket Ar socket\nThe socket.\n.El\n.Sh \"EXIT STATUS\""), "\(page)")
        #expect(page.contains(".It 64") && page.contains(".Xr pathmond 8"))
    }

    /// The page packaging installs: pathctl's own, finished with the exit statuses.
    @Test func pathctlsGeneratedPageIsFinished() throws {
        let generated = try runCommand([product("pathctl"), "--generate-manual", "November 28, 2026"]).output
        let page = try finish(generated, with: "docs/man/pathctl.1.exit")
        #expect(page.contains(".It Em check\n") && page.contains(".It Fl -unmetered\n"), "\(page)")
        #expect(!page.contains(".Ex -std") && page.contains(".It 69\n") && page.contains(".Xr pathmond 8"))
        if (try? runCommand(["sh", "-c", "command -v mandoc"], check: false).status) == 0 {
            let file = "/tmp/pmit-pathctl-\(getpid()).1"
            try Data(page.utf8).write(to: URL(filePath: file))
            defer { try? FileManager.default.removeItem(atPath: file) }
            let lint = try runCommand(["mandoc", "-T", "lint", "-W", "warning", file], check: false)
            #expect(lint.output.isEmpty, "\(lint.output)")
        }
    }

    @Test func pathctlsPageKeepsItsVerbsAndDocumentsEveryExitStatus() throws {
        let page = try finish(Self.verbsPage, with: "docs/man/pathctl.1.exit")
        #expect(page.contains(".Ar subcommand") && page.contains(".It Em help"))
        #expect(!page.contains(".Ex -std"))
        // Every status pathctl exits with (see `fail`, `ConditionFailure` and `ExitCode.validationFailure`).
        for status in [0, 1, 2, 3, 64, 69, 77] { #expect(page.contains(".It \(status)\n"), "\(status)") }
    }
}
