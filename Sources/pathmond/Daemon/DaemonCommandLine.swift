// SPDX-License-Identifier: Apache-2.0
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// pathmond's command line, parsed with glibc's getopt_long as systemd's daemons parse theirs: the daemon needs
/// two dozen options and no verbs, and swift-argument-parser cost it about 1 MB of the shipped binary (issue 25).
/// `parse` is a function of the arguments alone, so tests hold every option, default and error to it.
///
/// Each option is declared once, in `options`: its name, whether it takes a value, its help line and the field it
/// sets, from which the parser, `--help` and (through the fields' initial values) the defaults all come. What the
/// daemon itself uses is `daemon`, handed to it whole.
struct DaemonCommandLine: Equatable, Sendable {
    /// What the daemon is built from.
    var daemon = DaemonOptions()
    var config: String?
    var logLevel: Logger.Level = .info
    var checkConfig = false
    var dispatcher = false
    var dispatcherSocket = "/run/pathmond-dispatcher/io.pathmond.Dispatcher"
    var dispatcherStateDir = "/var/lib/pathmond-dispatcher"
    /// The positional FILE, taken with `--check-config` only.
    var checkedFile: String?

    /// What the command line asks for.
    typealias Request = CommandLineRequest<DaemonCommandLine>

    /// sysexits.h's EX_USAGE, as swift-argument-parser exited on a usage error.
    static let usageExitCode = CommandLineError.usageExitCode

    /// Every option, in `--help`'s order. The hidden ones (tests and benches point them at their own files) are
    /// neither in `--help` nor in pathmond(8).
    static let options: [CommandLineOption<DaemonCommandLine>] = [
        .init("socket", value: \.daemon.socket, help: "The Unix socket to serve io.pathmond on."),
        .init(
            "config", value: \.config,
            help: "The configuration file (INI; see pathmond.conf(5)). Default: /etc/pathmond.conf, if it exists."),
        .init(
            "state-dir", value: \.daemon.stateDirectory,
            help: "Where the policy (the networks the user marked) is kept."),
        .init(
            "log-level", level: \.logLevel,
            help: "Log level: trace, debug, info, notice, warning, error or critical."),
        .init(
            "max-clients", value: \.daemon.maxClients,
            help: "The most clients served at once (lowered to fit the open-file limit)."),
        .init(
            "max-clients-per-user", value: \.daemon.maxClientsPerUser,
            help: "The most clients one user other than root may hold at once."),
        .init(
            "max-watches-per-user", value: \.daemon.maxWatchesPerUser,
            help: "The most distinct paths and flows one user other than root may watch at once."),
        .init(
            "receive-buffer", value: \.daemon.receiveBuffer,
            help: "The netlink receive buffer in bytes (set with SO_RCVBUFFORCE when above rmem_max)."),
        .init("sysfs-root", value: \.daemon.sysfsRoot, hidden: true),
        .init("networkd-leases", value: \.daemon.networkdLeases, hidden: true),
        .init("networkd-links", value: \.daemon.networkdLinks, hidden: true),
        .init("connectivity-probe", value: \.daemon.connectivityProbe, hidden: true),
        .init("resolv-conf", value: \.daemon.resolvConf, hidden: true),
        .init("resolved-dir", value: \.daemon.resolvedDirectory, hidden: true),
        .init("system-bus", value: \.daemon.systemBus, hidden: true),
        .init(
            "no-system-bus", flag: \.daemon.usesSystemBus, setting: false,
            help: "Do not follow NetworkManager and ModemManager on the system bus."),
        .init(
            "check-config", flag: \.checkConfig,
            help: "Check the configuration file (FILE, else --config, else /etc/pathmond.conf) and exit: 0 if "
                + "pathmond would accept it, 78 (EX_CONFIG) with FILE:LINE: why on stderr if not."),
        .init(
            "dispatcher", flag: \.dispatcher,
            help: "Run the root helper pathmond-dispatcher instead (/usr/libexec/pathmond), with --socket, --config, "
                + "--log-level and the two options below: what units of earlier packages start."),
        .init(
            "dispatcher-socket", value: \.dispatcherSocket,
            help: "With --dispatcher: the socket where units' conditions register deferred runs and root lists them."),
        .init(
            "dispatcher-state-dir", value: \.dispatcherStateDir,
            help: "With --dispatcher: where the deferred runs are kept across restarts and reboots."),
    ]

    /// Parses the arguments after the program's name. GNU rules: `--name value` or `--name=value`, an unambiguous
    /// prefix of a name, options and FILE in any order, `--` ends the options.
    static func parse(_ arguments: [String]) throws(CommandLineError) -> Request {
        let (request, positionals) = try CommandLineScanner.scan(
            arguments, program: "pathmond", options: options, into: DaemonCommandLine())
        guard case .run(var line) = request else { return request }
        if positionals.count > 1 { throw .unexpectedArgument(positionals[1]) }
        line.checkedFile = positionals.first
        if line.checkedFile != nil && !line.checkConfig { throw .fileWithoutCheckConfig }
        return .run(line)
    }

    /// What `-h`/`--help` prints: swift-argument-parser's layout at 80 columns, as pathmond printed before; the
    /// options from `options` (`CommandLineHelp`).
    static let helpText =
        """
        OVERVIEW: Network path monitor: serves the system's network path over Varlink.

        pathmond follows the kernel's links, addresses, routes and rules through
        rtnetlink, derives the system's network path (satisfied or not, which
        interfaces, expensive, constrained) and serves it, and each client's own path
        and flows, on a Varlink socket. NetworkManager's Metered and ModemManager's SIM
        identities come from the system bus. It runs as the service pathmond.service
        (socket-activated, user pathmond); pathctl(1) shows and sets what it serves,
        pathmond.conf(5) configures it, and SIGHUP rereads the configuration. One
        pathmond serves a state directory: a second one exits.

        USAGE: pathmond [<options>] [<file>]

        ARGUMENTS:
          <file>                  The file --check-config checks.

        OPTIONS:

        """ + CommandLineHelp.options(options, defaults: DaemonCommandLine())

    /// What follows a usage error's own line on stderr.
    static let usageHint = """
        Usage: pathmond [<options>] [<file>]
          See 'pathmond --help' for more information.
        """
}
