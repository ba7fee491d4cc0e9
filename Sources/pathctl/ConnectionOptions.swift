import PathProtocol
// SPDX-License-Identifier: Apache-2.0
import PathmondClient

#if canImport(Glibc)
    import Glibc
#endif

/// How `--json` prints: `short` one line, `pretty` indented by two spaces, `off` a table (networkctl's modes).
enum JSONMode: String, CaseIterable {
    case short
    case pretty
    case off
}

/// Options every verb shares; they may also come before the verb.
struct ConnectionOptions {
    static let specs: [OptionSpec] = [
        .option(
            "socket", "The socket pathmond listens on (default: $PATHMOND_SOCKET, else \(defaultSocket)).",
            completion: .file),
        .option(
            "json", value: "short|pretty|off",
            "Print JSON for scripts instead of a table: short (one line) or pretty; a bare --json is pretty on a"
                + " terminal and short otherwise.",
            completion: .values(JSONMode.allCases.map(\.rawValue))
        ).with { $0.defaultText = JSONMode.off.rawValue },
        .flag("no-legend", "Print tables without their header."),
        .flag("no-pager", "Accepted for networkctl's users; pathctl never starts a pager."),
    ]

    var socket: String
    var jsonFormat: JSONMode
    var noLegend: Bool
    var noPager: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        socket = arguments.value("socket") ?? Self.environmentSocket ?? PathmondConnection.defaultSocketPath
        jsonFormat = try arguments.value("json", expected: "short, pretty or off", JSONMode.init(rawValue:)) ?? .off
        noLegend = arguments.flag("no-legend")
        noPager = arguments.flag("no-pager")
    }

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
