// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PathMonitor
import PathProtocol
import ProgramArguments

#if canImport(Glibc)
    import Glibc
#endif

/// pathctl: look at the network path pathmond serves.
@main
struct Pathctl: ParsableCommand {
    /// Every verb; a new one (say `log`) is added here and nowhere else: the verb list of errors and the
    /// argument normalisation read it.
    static let verbs: [ParsableCommand.Type] = [
        Status.self, Monitor.self, Check.self, Wait.self, SetConstrained.self, SetUltraConstrained.self,
        SetExpensive.self, Networks.self,
        Name.self, Forget.self, Log.self, Exec.self, Deferred.self,
    ]

    static let configuration = CommandConfiguration(
        commandName: "pathctl",
        abstract: "Show and follow the network path served by pathmond.",
        discussion: """
            Global options (--socket, --json, --no-legend, --no-pager) may come before or after the verb; \
            without a verb pathctl runs 'status'. $PATHMOND_SOCKET names the socket when --socket is not given.
            """,
        version: "0.1.0",
        subcommands: verbs,
        defaultSubcommand: Status.self
    )

    /// Normalises the command line first (see `GlobalArguments`), then parses and runs as usual.
    static func main() {
        // A gate that cannot know what it was asked must not answer: 0 would run the unit it guards.
        guard let arguments = ProgramArguments.afterName() else {
            printError("pathctl: no command line to read (started with an empty argv): refusing to guess one")
            Glibc.exit(ExitCode.validationFailure.rawValue)
        }
        let outcome = GlobalArguments.normalize(
            arguments, verbs: verbs.map { $0._commandName },
            defaultVerb: Status._commandName, standardOutputIsTerminal: isatty(STDOUT_FILENO) == 1)
        switch outcome {
        case .run(let arguments):
            main(arguments)
        case .usageError(let message):
            printError("pathctl: \(message)")
            printError("Try 'pathctl --help' for more information.")
            Glibc.exit(ExitCode.validationFailure.rawValue)
        }
    }
}

/// How `--json` prints: `short` one line, `pretty` indented by two spaces, `off` a table (networkctl's modes).
enum JSONMode: String, ExpressibleByArgument, CaseIterable {
    case short
    case pretty
    case off
}

/// Options every verb shares; they may also come before the verb.
struct ConnectionOptions: ParsableArguments {
    @Option(help: "The socket pathmond listens on (default: $PATHMOND_SOCKET, else \(defaultSocket)).")
    var socket: String = environmentSocket ?? PathmondConnection.defaultSocketPath

    @Option(
        name: .customLong("json"),
        help: ArgumentHelp(
            "Print JSON for scripts instead of a table: short (one line) or pretty; a bare --json is pretty on a"
                + " terminal and short otherwise.",
            valueName: "short|pretty|off"))
    var jsonFormat: JSONMode = .off

    @Flag(help: "Print tables without their header.")
    var noLegend = false

    @Flag(help: "Accepted for networkctl's users; pathctl never starts a pager.")
    var noPager = false

    /// The JSON mode, or nil for tables.
    var jsonMode: JSONMode? { jsonFormat == .off ? nil : jsonFormat }

    /// Whether JSON was asked for (verbs that print one document and leave its layout to `JSONOutput`).
    var json: Bool { jsonMode != nil }

    private static let defaultSocket = PathmondConnection.defaultSocketPath

    /// $PATHMOND_SOCKET, when set and not empty.
    static var environmentSocket: String? {
        guard let value = getenv("PATHMOND_SOCKET"), value.pointee != 0 else { return nil }
        return String(cString: value)
    }

    /// Connects to pathmond, and warns (as networkctl does) when it serves another network namespace than
    /// pathctl's own: what it reports would then not be this shell's network.
    func connect() throws(PathmondClientError) -> PathmondConnection {
        let connection = try PathmondConnection(socketPath: socket)
        NamespaceCheck.warnIfForeign(connection)
        return connection
    }
}

/// Turns a client error into a plain message on stderr and a non-zero exit (69, EX_UNAVAILABLE, when the
/// daemon cannot be reached or serves nothing because it refuses its configuration).
func fail(_ error: PathmondClientError) -> ExitCode {
    printError("pathctl: " + HumanText.escaped("\(error)"))
    switch error {
    case .daemonNotRunning:
        printError("Start it with 'systemctl start pathmond', or name its socket with --socket or $PATHMOND_SOCKET.")
        return ExitCode(69)
    case .permissionDenied, .disconnected, .timedOut: return ExitCode(69)
    case .remote(.configurationRefused):
        printError("Fix the file (pathmond --check-config says why), then run 'systemctl reload pathmond'.")
        return ExitCode(69)
    case .remote(.pathmondPermissionDenied): return ExitCode(77)
    default: return ExitCode.failure
    }
}
