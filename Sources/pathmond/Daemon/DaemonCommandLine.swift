// SPDX-License-Identifier: Apache-2.0
import CGetopt
import Locking
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
    /// A CA bundle to verify captive-portal APIs with instead of the system's (tests).
    var portalCAFile: String?
    /// The connectivity check's probe socket (pathmond-probe.socket; tests point it at a `pathmond-probe --listen`).
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
    enum Request: Equatable, Sendable {
        case run(DaemonCommandLine)
        case help
        case version
    }

    /// sysexits.h's EX_USAGE, as swift-argument-parser exited on a usage error.
    static let usageExitCode: Int32 = 64

    /// Every option, in `--help`'s order. The hidden ones (tests and benches point them at their own files) are
    /// neither in `--help` nor in pathmond(8).
    static let options: [CommandLineOption] = [
        .init("socket", value: \.socket), .init("config", value: \.config), .init("state-dir", value: \.stateDir),
        .init("log-level", level: \.logLevel), .init("max-clients", value: \.maxClients),
        .init("max-clients-per-user", value: \.maxClientsPerUser),
        .init("max-watches-per-user", value: \.maxWatchesPerUser),
        .init("receive-buffer", value: \.receiveBuffer),
        .init("sysfs-root", value: \.sysfsRoot, hidden: true),
        .init("networkd-leases", value: \.networkdLeases, hidden: true),
        .init("networkd-links", value: \.networkdLinks, hidden: true),
        .init("portal-ca-file", value: \.portalCAFile, hidden: true),
        .init("connectivity-probe", value: \.connectivityProbe, hidden: true),
        .init("resolv-conf", value: \.resolvConf, hidden: true),
        .init("resolved-dir", value: \.resolvedDir, hidden: true),
        .init("system-bus", value: \.systemBus, hidden: true),
        .init("no-system-bus", flag: \.noSystemBus), .init("check-config", flag: \.checkConfig),
        .init("dispatcher", flag: \.dispatcher), .init("dispatcher-socket", value: \.dispatcherSocket),
        .init("dispatcher-state-dir", value: \.dispatcherStateDir),
    ]

    /// getopt_long keeps its place in globals (optind, optarg, optopt): one parse at a time in the process.
    private static let getoptLock = Lock()

    /// Parses the arguments after the program's name. GNU rules: `--name value` or `--name=value`, an unambiguous
    /// prefix of a name, options and FILE in any order, `--` ends the options.
    static func parse(_ arguments: [String]) throws(CommandLineError) -> Request {
        let (request, positionals) = try getoptLock.withLock { () throws(CommandLineError) in
            try scan(arguments)
        }
        guard case .run(var line) = request else { return request }
        if positionals.count > 1 { throw .unexpectedArgument(positionals[1]) }
        line.checkedFile = positionals.first
        if line.checkedFile != nil && !line.checkConfig { throw .fileWithoutCheckConfig }
        return .run(line)
    }

    /// One getopt_long pass over a private copy of the arguments: the request and the operands left over.
    private static func scan(_ arguments: [String]) throws(CommandLineError) -> (Request, [String]) {
        let help = Int32(UInt8(ascii: "h"))
        let firstLong: Int32 = 256
        var argv: [UnsafeMutablePointer<CChar>?] = (["pathmond"] + arguments).map { strdup($0) } + [nil]
        let names = options.map { strdup($0.name) } + [strdup("version"), strdup("help")]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in names { free(pointer) }
        }
        var table = options.enumerated().map { index, option in
            CGetopt.option(
                name: names[index], has_arg: option.takesValue ? required_argument : no_argument, flag: nil,
                val: firstLong + Int32(index))
        }
        let version = firstLong + Int32(options.count)
        table.append(CGetopt.option(name: names[options.count], has_arg: no_argument, flag: nil, val: version))
        table.append(CGetopt.option(name: names[options.count + 1], has_arg: no_argument, flag: nil, val: help))
        table.append(CGetopt.option(name: nil, has_arg: 0, flag: nil, val: 0))
        cgetopt_restart()
        var line = DaemonCommandLine()
        var request: Request?
        let count = Int32(argv.count - 1)
        while true {
            let code = getopt_long(count, &argv, ":h", table, nil)
            if code == -1 { break }
            switch code {
            case help: request = request ?? .help
            case version: request = request ?? .version
            case firstLong..<version:
                let option = options[Int(code - firstLong)]
                try option.apply(cgetopt_value().map { String(cString: $0) }, &line)
            case Int32(UInt8(ascii: ":")):
                throw .missingValue(name(of: cgetopt_problem(), argv: argv))
            default:
                // An unknown name leaves optopt 0; a flag given a value (`--dispatcher=1`) leaves the flag's code.
                let problem = cgetopt_problem()
                if problem >= firstLong && problem < version { throw .unexpectedValue(name(of: problem, argv: argv)) }
                if problem > 0 { throw .unknownOption("-" + String(UnicodeScalar(UInt8(truncatingIfNeeded: problem)))) }
                let word = argv[Int(cgetopt_index()) - 1].map { String(cString: $0) } ?? "?"
                let typed = String(word.prefix { $0 != "=" })
                let candidates = options.filter { ("--" + $0.name).hasPrefix(typed) }
                if typed.hasPrefix("--") && candidates.count > 1 { throw .ambiguousOption(typed) }
                throw .unknownOption(typed)
            }
        }
        let operands = argv[Int(cgetopt_index())..<Int(count)].map { String(cString: $0!) }
        return (request ?? .run(line), operands)
    }

    /// `--name` of the option getopt_long answered with `code` (the word as typed if it was no option of ours).
    private static func name(of code: Int32, argv: [UnsafeMutablePointer<CChar>?]) -> String {
        let index = Int(code) - 256
        if options.indices.contains(index) { return "--" + options[index].name }
        return argv[Int(cgetopt_index()) - 1].map { String(cString: $0) } ?? "?"
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
          --dispatcher            Run as the root helper pathmond-dispatcher.service:
                                  follow the path on --socket and start and stop
                                  pathmond-online.target and pathmond-unmetered.target
                                  through systemd, after the settle and grace times of
                                  [discretionary] in the configuration.
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

/// A command line pathmond refuses: a usage error (exit 64), worded as swift-argument-parser worded it.
enum CommandLineError: Error, Equatable, CustomStringConvertible {
    case unknownOption(String)
    /// A prefix of more than one name: `--dispatcher-s`.
    case ambiguousOption(String)
    case missingValue(String)
    /// A flag given a value: `--dispatcher=yes`.
    case unexpectedValue(String)
    case invalidValue(option: String, value: String, accepted: [String])
    case unexpectedArgument(String)
    case fileWithoutCheckConfig

    var description: String {
        switch self {
        case .unknownOption(let word): "Unknown option '\(word)'"
        case .ambiguousOption(let word): "Ambiguous option '\(word)'"
        case .missingValue(let option): "Missing value for '\(option)'"
        case .unexpectedValue(let option): "The option '\(option)' takes no value"
        case .invalidValue(let option, let value, let accepted):
            "The value '\(value)' is invalid for '\(option)'"
                + (accepted.isEmpty ? "" : "; one of: " + accepted.joined(separator: ", "))
        case .unexpectedArgument(let word): "Unexpected argument '\(word)'"
        case .fileWithoutCheckConfig:
            "a file argument is only taken with --check-config; use --config FILE to run with it"
        }
    }
}

/// One `--name`: whether it takes a value, and where the value goes.
struct CommandLineOption: Sendable {
    let name: String
    let hidden: Bool
    let takesValue: Bool
    let apply: @Sendable (String?, inout DaemonCommandLine) throws(CommandLineError) -> Void

    init(_ name: String, value field: WritableKeyPath<DaemonCommandLine, String> & Sendable, hidden: Bool = false) {
        self.init(name, hidden: hidden, takesValue: true) { value, line throws(CommandLineError) in
            line[keyPath: field] = value ?? ""
        }
    }

    init(_ name: String, value field: WritableKeyPath<DaemonCommandLine, String?> & Sendable, hidden: Bool = false) {
        self.init(name, hidden: hidden, takesValue: true) { value, line throws(CommandLineError) in
            line[keyPath: field] = value
        }
    }

    init(_ name: String, value field: WritableKeyPath<DaemonCommandLine, Int> & Sendable) {
        self.init(name, hidden: false, takesValue: true) { value, line throws(CommandLineError) in
            guard let value, let number = Int(value) else {
                throw .invalidValue(option: "--" + name, value: value ?? "", accepted: [])
            }
            line[keyPath: field] = number
        }
    }

    init(_ name: String, level field: WritableKeyPath<DaemonCommandLine, Logger.Level> & Sendable) {
        self.init(name, hidden: false, takesValue: true) { value, line throws(CommandLineError) in
            guard let value, let level = Logger.Level(rawValue: value) else {
                throw .invalidValue(
                    option: "--" + name, value: value ?? "", accepted: Logger.Level.allCases.map(\.rawValue))
            }
            line[keyPath: field] = level
        }
    }

    init(_ name: String, flag field: WritableKeyPath<DaemonCommandLine, Bool> & Sendable) {
        self.init(name, hidden: false, takesValue: false) { _, line throws(CommandLineError) in
            line[keyPath: field] = true
        }
    }

    private init(
        _ name: String, hidden: Bool, takesValue: Bool,
        apply: @escaping @Sendable (String?, inout DaemonCommandLine) throws(CommandLineError) -> Void
    ) {
        self.name = name
        self.hidden = hidden
        self.takesValue = takesValue
        self.apply = apply
    }
}
