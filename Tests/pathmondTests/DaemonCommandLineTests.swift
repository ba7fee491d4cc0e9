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
        #expect(line.socket == "/run/pathmond/io.pathmond")
        #expect(line.config == nil && line.systemBus == nil && line.checkedFile == nil)
        #expect(line.stateDir == "/var/lib/pathmond")
        #expect(line.logLevel == .info)
        #expect(line.maxClients == 16384 && line.maxClientsPerUser == 1024 && line.maxWatchesPerUser == 512)
        #expect(line.receiveBuffer == 33_554_432)
        #expect(line.sysfsRoot == "/sys/class/net" && line.resolvConf == "/etc/resolv.conf")
        #expect(line.networkdLeases == "/run/systemd/netif/leases")
        #expect(line.networkdLinks == "/run/systemd/netif/links")
        #expect(line.resolvedDir == "/run/systemd/resolve")
        // pathmond-probe.socket's ListenStream=.
        #expect(line.connectivityProbe == "/run/pathmond-probe.socket")
        #expect(!line.noSystemBus && !line.checkConfig && !line.dispatcher)
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
        expected.socket = "/s"
        expected.config = "/c"
        expected.stateDir = "/d"
        expected.logLevel = .debug
        expected.maxClients = 7
        expected.maxClientsPerUser = 8
        expected.maxWatchesPerUser = 9
        expected.receiveBuffer = 4096
        expected.sysfsRoot = "/sys2"
        expected.networkdLeases = "/l"
        expected.networkdLinks = "/k"
        expected.resolvConf = "/r"
        expected.resolvedDir = "/rd"
        expected.systemBus = "unix:path=/b"
        expected.noSystemBus = true
        expected.dispatcher = true
        expected.dispatcherSocket = "/ds"
        expected.dispatcherStateDir = "/dd"
        expected.connectivityProbe = "/probe"
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
                    var line = DaemonCommandLine(); line.stateDir = "/b"; return line
                }())
    }

    @Test func aUniquePrefixNamesItsOption() throws {
        #expect(try options(["--sock", "/s"]).socket == "/s")
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
}
