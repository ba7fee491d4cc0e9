// SPDX-License-Identifier: Apache-2.0
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// pathmond's command line, parsed with glibc's getopt_long as systemd's daemons parse theirs: the daemon needs
/// two dozen options and no verbs, and swift-argument-parser cost it about 1 MB of the shipped binary (issue 25).
/// `parse` is a function of the arguments alone, so tests hold every option, default and error to it.
struct DaemonCommandLine: Equatable, Sendable {
    var socket = "/run/pathmond/io.pathmond"
    var config: String?
    var stateDir = "/var/lib/pathmond"
    var logLevel: Logger.Level = .info
    var maxClients = 16384
    var maxClientsPerUser = 1024
    var maxWatchesPerUser = 512
    var receiveBuffer = 32 * 1024 * 1024
    var sysfsRoot = "/sys/class/net"
    var networkdLeases = "/run/systemd/netif/leases"
    var networkdLinks = "/run/systemd/netif/links"
    /// The probe's socket, for the connectivity and RFC 8908 checks (pathmond-probe.socket; tests point it at a `pathmond-probe --listen`).
    var connectivityProbe = "/run/pathmond-probe.socket"
    var resolvConf = "/etc/resolv.conf"
    var resolvedDir = "/run/systemd/resolve"
    var systemBus: String?
    var noSystemBus = false
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
        .init("socket", value: \.socket), .init("config", value: \.config), .init("state-dir", value: \.stateDir),
        .init("log-level", level: \.logLevel), .init("max-clients", value: \.maxClients),
        .init("max-clients-per-user", value: \.maxClientsPerUser),
        .init("max-watches-per-user", value: \.maxWatchesPerUser),
        .init("receive-buffer", value: \.receiveBuffer),
        .init("sysfs-root", value: \.sysfsRoot, hidden: true),
        .init("networkd-leases", value: \.networkdLeases, hidden: true),
        .init("networkd-links", value: \.networkdLinks, hidden: true),
        .init("connectivity-probe", value: \.connectivityProbe, hidden: true),
        .init("resolv-conf", value: \.resolvConf, hidden: true),
        .init("resolved-dir", value: \.resolvedDir, hidden: true),
        .init("system-bus", value: \.systemBus, hidden: true),
        .init("no-system-bus", flag: \.noSystemBus), .init("check-config", flag: \.checkConfig),
        .init("dispatcher", flag: \.dispatcher), .init("dispatcher-socket", value: \.dispatcherSocket),
        .init("dispatcher-state-dir", value: \.dispatcherStateDir),
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

    /// What `-h`/`--help` prints: swift-argument-parser's layout at 80 columns, as pathmond printed before.
    static let helpText = """
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
          --socket <socket>       The Unix socket to serve io.pathmond on. (default:
                                  /run/pathmond/io.pathmond)
          --config <config>       The configuration file (INI; see pathmond.conf(5)).
                                  Default: /etc/pathmond.conf, if it exists.
          --state-dir <state-dir> Where the policy (the networks the user marked) is
                                  kept. (default: /var/lib/pathmond)
          --log-level <log-level> Log level: trace, debug, info, notice, warning, error
                                  or critical. (values: trace, debug, info, notice,
                                  warning, error, critical; default: info)
          --max-clients <max-clients>
                                  The most clients served at once (lowered to fit the
                                  open-file limit). (default: 16384)
          --max-clients-per-user <max-clients-per-user>
                                  The most clients one user other than root may hold at
                                  once. (default: 1024)
          --max-watches-per-user <max-watches-per-user>
                                  The most distinct paths and flows one user other than
                                  root may watch at once. (default: 512)
          --receive-buffer <receive-buffer>
                                  The netlink receive buffer in bytes (set with
                                  SO_RCVBUFFORCE when above rmem_max). (default:
                                  33554432)
          --no-system-bus         Do not follow NetworkManager and ModemManager on the
                                  system bus.
          --check-config          Check the configuration file (FILE, else --config,
                                  else /etc/pathmond.conf) and exit: 0 if pathmond
                                  would accept it, 78 (EX_CONFIG) with FILE:LINE: why
                                  on stderr if not.
          --dispatcher            Run the root helper pathmond-dispatcher instead
                                  (/usr/libexec/pathmond), with --socket, --config,
                                  --log-level and the two options below: what units
                                  of earlier packages start.
          --dispatcher-socket <dispatcher-socket>
                                  With --dispatcher: the socket where units'
                                  conditions register deferred runs and root lists
                                  them. (default:
                                  /run/pathmond-dispatcher/io.pathmond.Dispatcher)
          --dispatcher-state-dir <dispatcher-state-dir>
                                  With --dispatcher: where the deferred runs are kept
                                  across restarts and reboots. (default:
                                  /var/lib/pathmond-dispatcher)
          --version               Show the version.
          -h, --help              Show help information.

        """

    /// What follows a usage error's own line on stderr.
    static let usageHint = """
        Usage: pathmond [<options>] [<file>]
          See 'pathmond --help' for more information.
        """
}
