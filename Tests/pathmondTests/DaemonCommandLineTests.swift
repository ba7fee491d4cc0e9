// SPDX-License-Identifier: Apache-2.0
import Foundation
import Logging
import Testing

@testable import pathmond

/// pathmond's command line through glibc's getopt_long: every option's default and value, GNU spellings, the
/// `--check-config [FILE]` operand, and each usage error as a typed value (the daemon exits 64 on them).
@Suite struct DaemonCommandLineTests {
    func options(_ arguments: [String]) throws -> DaemonCommandLine {
        guard case .run(let line) = try DaemonCommandLine.parse(arguments) else {
            Issue.record("\(arguments) asked for help or the version")
            return DaemonCommandLine()
        }
        return line
    }

    func error(_ arguments: [String]) -> CommandLineError? {
        do {
            _ = try DaemonCommandLine.parse(arguments)
            return nil
        } catch {
            return error
        }
    }

    @Test func noArgumentsGiveTheDefaultsTheServiceRunsWith() throws {
        let line = try options([])
        let daemon = line.daemon
        #expect(daemon.socket == "/run/pathmond/io.pathmond")
        #expect(line.config == nil && daemon.systemBus == nil && line.checkedFile == nil)
        #expect(daemon.inheritedSocket == nil)
        #expect(daemon.stateDirectory == "/var/lib/pathmond")
        #expect(line.logLevel == .info)
        #expect(daemon.maxClients == 16384 && daemon.maxClientsPerUser == 1024 && daemon.maxWatchesPerUser == 512)
        #expect(daemon.receiveBuffer == 33_554_432)
        #expect(daemon.sysfsRoot == "/sys/class/net" && daemon.resolvConf == "/etc/resolv.conf")
        #expect(daemon.networkdLeases == "/run/systemd/netif/leases")
        #expect(daemon.networkdLinks == "/run/systemd/netif/links")
        #expect(daemon.resolvedDirectory == "/run/systemd/resolve")
        // pathmond-probe.socket's ListenStream=.
        #expect(daemon.connectivityProbe == "/run/pathmond-probe.socket")
        #expect(daemon.usesSystemBus && !line.checkConfig && !line.dispatcher)
        #expect(daemon.version == PathmondCommand.version)
        #expect(line.dispatcherSocket == "/run/pathmond-dispatcher/io.pathmond.Dispatcher")
        #expect(line.dispatcherStateDir == "/var/lib/pathmond-dispatcher")
    }

    @Test func everyOptionReachesItsField() throws {
        let line = try options([
            "--socket", "/s", "--config=/c", "--state-dir", "/d", "--log-level", "debug", "--max-clients", "7",
            "--max-clients-per-user=8", "--max-watches-per-user", "9", "--receive-buffer", "4096", "--sysfs-root",
            "/sys2", "--networkd-leases", "/l", "--networkd-links", "/k", "--resolv-conf",
            "/r", "--resolved-dir",
            "/rd", "--system-bus", "unix:path=/b", "--no-system-bus", "--dispatcher", "--dispatcher-socket", "/ds",
            "--dispatcher-state-dir", "/dd", "--connectivity-probe", "/probe",
        ])
        var expected = DaemonCommandLine()
        expected.daemon.socket = "/s"
        expected.config = "/c"
        expected.daemon.stateDirectory = "/d"
        expected.logLevel = .debug
        expected.daemon.maxClients = 7
        expected.daemon.maxClientsPerUser = 8
        expected.daemon.maxWatchesPerUser = 9
        expected.daemon.receiveBuffer = 4096
        expected.daemon.sysfsRoot = "/sys2"
        expected.daemon.networkdLeases = "/l"
        expected.daemon.networkdLinks = "/k"
        expected.daemon.resolvConf = "/r"
        expected.daemon.resolvedDirectory = "/rd"
        expected.daemon.systemBus = "unix:path=/b"
        expected.daemon.usesSystemBus = false
        expected.dispatcher = true
        expected.dispatcherSocket = "/ds"
        expected.dispatcherStateDir = "/dd"
        expected.daemon.connectivityProbe = "/probe"
        #expect(line == expected)
        // Every option in the table was given above: a new one must be added here too.
        #expect(DaemonCommandLine.options.count == 20)
    }

    @Test func checkConfigTakesItsFileBeforeOrAfterTheFlag() throws {
        #expect(try options(["--check-config", "/etc/x.conf"]).checkedFile == "/etc/x.conf")
        #expect(try options(["/etc/x.conf", "--check-config"]).checkedFile == "/etc/x.conf")
        let both = try options(["--check-config", "--config", "/c"])
        #expect(both.checkConfig && both.config == "/c" && both.checkedFile == nil)
        // After `--`, a word that looks like an option is the file.
        #expect(try options(["--check-config", "--", "--odd-name"]).checkedFile == "--odd-name")
    }

    @Test func helpAndVersionWinOverEverythingElse() throws {
        #expect(try DaemonCommandLine.parse(["--help"]) == .help)
        #expect(try DaemonCommandLine.parse(["-h", "--socket", "/s"]) == .help)
        #expect(try DaemonCommandLine.parse(["--version"]) == .version)
        #expect(try DaemonCommandLine.parse(["--log-level", "error", "--version"]) == .version)
    }

    @Test func usageErrorsAreTypedAndNamed() {
        #expect(error(["--bogus"]) == .unknownOption("--bogus"))
        #expect(error(["--bogus=1"]) == .unknownOption("--bogus"))
        #expect(error(["-x"]) == .unknownOption("-x"))
        #expect(error(["--socket"]) == .missingValue("--socket"))
        #expect(error(["--dispatcher=yes"]) == .unexpectedValue("--dispatcher"))
        #expect(error(["--dispatcher-s", "/x"]) == .ambiguousOption("--dispatcher-s"))
        #expect(
            error(["--max-clients", "many"]) == .invalidValue(option: "--max-clients", value: "many", accepted: []))
        let levels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
        #expect(
            error(["--log-level", "loud"]) == .invalidValue(option: "--log-level", value: "loud", accepted: levels))
        #expect(error(["/etc/pathmond.conf"]) == .fileWithoutCheckConfig)
        #expect(error(["--check-config", "a", "b"]) == .unexpectedArgument("b"))
        #expect(
            CommandLineError.fileWithoutCheckConfig.description
                == "a file argument is only taken with --check-config; use --config FILE to run with it")
    }

    @Test func aFailedParseLeavesTheNextOneClean() throws {
        // getopt_long's state is global: a parse that stopped half-way must not leak into the next one.
        #expect(error(["--socket", "/a", "--bogus", "--state-dir", "/b"]) == .unknownOption("--bogus"))
        #expect(
            try options(["--state-dir", "/b"])
                == {
                    var line = DaemonCommandLine(); line.daemon.stateDirectory = "/b"; return line
                }())
    }

    @Test func aUniquePrefixNamesItsOption() throws {
        #expect(try options(["--sock", "/s"]).daemon.socket == "/s")
        #expect(try options(["--check", "/f"]).checkedFile == "/f")
    }

    /// `--help` and pathmond(8) name every option the table has, except the hidden ones, which neither names.
    @Test func helpAndManualPageListTheVisibleOptionsOnly() throws {
        let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let page = try String(contentsOf: root.appending(path: "docs/man/pathmond.8"), encoding: .utf8)
        let help = DaemonCommandLine.helpText
        for option in DaemonCommandLine.options {
            let inHelp = help.contains("  --\(option.name) ")
            let inPage = page.contains(".It Fl -\(option.name)\n") || page.contains(".It Fl -\(option.name) ")
            #expect(inHelp == !option.hidden, "--help and --\(option.name)")
            #expect(inPage == !option.hidden, "pathmond(8) and --\(option.name)")
        }
        #expect(page.contains(".It 64\n") && page.contains(".It 78\n"), "the usage and configuration statuses")
        #expect(help.contains("  --version ") && page.contains(".It Fl -version"))
    }

    /// Every option of the table parses and sets its field, and every visible one is in `--help` with its whole
    /// help line: the table is the one place an option is declared.
    @Test func everyOptionParsesAndTheVisibleOnesAreInHelp() throws {
        let help = DaemonCommandLine.helpText
        let joinedHelp = help.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for option in DaemonCommandLine.options {
            var arguments = ["--" + option.name]
            if option.takesValue {
                // "7" suits a number and a path; the log level takes one of its names.
                let value = error(["--\(option.name)=7"]).flatMap { refusal -> String? in
                    guard case .invalidValue(_, _, let accepted) = refusal else { return nil }
                    return accepted.last
                }
                arguments = ["--\(option.name)=\(value ?? "7")"]
            }
            #expect(try options(arguments) != DaemonCommandLine(), "--\(option.name) sets nothing")
            guard !option.hidden else {
                #expect(option.help.isEmpty, "--\(option.name) is hidden: its help would never be shown")
                continue
            }
            #expect(!option.help.isEmpty, "--\(option.name) has no help line")
            #expect(help.contains("  --\(option.name)" + (option.takesValue ? " <\(option.name)>" : " ")))
            #expect(joinedHelp.contains(option.help), "--\(option.name)'s help line")
        }
    }

    /// `--help`'s layout: within 80 columns, help at column 26, a long name on its own line, the defaults the
    /// parse starts from.
    @Test func helpShowsEachOptionInTheArgumentParserLayout() {
        let lines = DaemonCommandLine.helpText.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.allSatisfy { $0.count < 80 }, "\(lines.filter { $0.count >= 80 })")
        #expect(lines.contains("  --socket <socket>       The Unix socket to serve io.pathmond on. (default:"))
        #expect(lines.contains("                          /run/pathmond/io.pathmond)"))
        #expect(lines.contains("  --receive-buffer <receive-buffer>"))
        #expect(lines.contains("  --no-system-bus         Do not follow NetworkManager and ModemManager on the"))
        #expect(lines.contains("                          warning, error, critical; default: info)"))
        #expect(lines.contains("                          33554432)"))
        #expect(DaemonCommandLine.helpText.hasSuffix("  -h, --help              Show help information.\n"))
        #expect(CommandLineHelp.wrap("a bb ccc dddd", width: 6) == ["a bb", "ccc", "dddd"])
    }
}
