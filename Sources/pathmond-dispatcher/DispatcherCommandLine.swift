// SPDX-License-Identifier: Apache-2.0
import DaemonRuntime
import Logging

/// pathmond-dispatcher's command line: where pathmond serves, where the helper listens and keeps its deferrals, and
/// the configuration whose `[discretionary]` it reads. The names are those `pathmond --dispatcher` took, which
/// still passes them on (`DispatcherAlias`).
struct DispatcherCommandLine: Equatable, Sendable {
    var socket = "/run/pathmond/io.pathmond"
    var config: String?
    var logLevel: Logger.Level = .info
    var systemBus: String?
    var dispatcherSocket = "/run/pathmond-dispatcher/io.pathmond.Dispatcher"
    var dispatcherStateDir = "/var/lib/pathmond-dispatcher"

    typealias Request = CommandLineRequest<DispatcherCommandLine>

    /// Every option, in `--help`'s order; `--system-bus` is hidden (tests point it at their own bus).
    static let options: [CommandLineOption<DispatcherCommandLine>] = [
        .init("socket", value: \.socket), .init("config", value: \.config), .init("log-level", level: \.logLevel),
        .init("system-bus", value: \.systemBus, hidden: true),
        .init("dispatcher-socket", value: \.dispatcherSocket),
        .init("dispatcher-state-dir", value: \.dispatcherStateDir),
    ]

    /// Parses the arguments after the program's name (GNU rules, as pathmond's); it takes no operands.
    static func parse(_ arguments: [String]) throws(CommandLineError) -> Request {
        let (request, operands) = try CommandLineScanner.scan(
            arguments, program: "pathmond-dispatcher", options: options, into: DispatcherCommandLine())
        if let operand = operands.first { throw .unexpectedArgument(operand) }
        return request
    }

    static let helpText = """
        OVERVIEW: Network path monitor's root helper: starts and stops units as the path
        changes.

        pathmond-dispatcher follows the path pathmond serves and starts and stops
        pathmond-online.target and pathmond-unmetered.target, and the runs `pathctl
        check` deferred on a metered path once it is cheap. It runs as the service
        pathmond-dispatcher.service (root); SIGHUP rereads [discretionary] of
        pathmond.conf(5).

        USAGE: pathmond-dispatcher [<options>]

        OPTIONS:
          --socket <socket>       The socket pathmond serves io.pathmond on. (default:
                                  /run/pathmond/io.pathmond)
          --config <config>       The configuration file (INI; see pathmond.conf(5)).
                                  Default: /etc/pathmond.conf, if it exists.
          --log-level <log-level> Log level: trace, debug, info, notice, warning, error
                                  or critical. (values: trace, debug, info, notice,
                                  warning, error, critical; default: info)
          --dispatcher-socket <dispatcher-socket>
                                  The socket where units' conditions register deferred
                                  runs and root lists them. (default:
                                  /run/pathmond-dispatcher/io.pathmond.Dispatcher)
          --dispatcher-state-dir <dispatcher-state-dir>
                                  Where the deferred runs are kept across restarts and
                                  reboots. (default: /var/lib/pathmond-dispatcher)
          --version               Show the version.
          -h, --help              Show help information.

        """

    static let usageHint = """
        Usage: pathmond-dispatcher [<options>]
          See 'pathmond-dispatcher --help' for more information.
        """
}
