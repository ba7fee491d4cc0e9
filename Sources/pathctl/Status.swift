// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import PathmondClient

/// `pathctl status`: the path and every interface.
struct Status: Verb {
    static let spec = VerbSpec(
        name: "status", abstract: "Show the network path and each interface.",
        discussion: "The path requirements narrow the whole output: the path, and the interfaces listed.",
        options: ConnectionOptions.specs + PathOptions.specs)

    var options: ConnectionOptions
    var requirements: PathOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        options = try ConnectionOptions(arguments)
        requirements = try PathOptions(arguments)
    }

    func run() throws(ExitCode) {
        do {
            let connection = try options.connect()
            let parameters = requirements.parameters
            let path = try connection.path(parameters: parameters)
            let interfaces = InterfaceFilter(parameters: parameters).apply(try connection.interfaces())
            let status = try connection.status()
            // A daemon without history (older) leaves the line out.
            let lastChange = try? connection.history(PathHistoryQuery(limit: 1)).last
            if let mode = options.jsonMode {
                let document = StatusDocument(
                    path: WirePath(path), interfaces: interfaces, daemon: status, lastChange: lastChange)
                print(JSONOutput.encode(document, mode: mode))
            } else {
                print(
                    StatusTable.render(
                        path: path, interfaces: interfaces, status: status, width: TerminalWidth.current,
                        legend: !options.noLegend))
                // The system path's last change: beside a path narrowed by requirements it would name what the
                // requirements left out.
                if let lastChange, parameters == .system {
                    print("\n" + Self.fitted("Last change: " + LogLine.text(lastChange), width: TerminalWidth.current))
                }
            }
        } catch {
            throw fail(error)
        }
    }
}

extension Status {
    /// `line` cut to the terminal's width with "…" (whole when piped).
    static func fitted(_ line: String, width: Int?) -> String {
        guard let width, HumanText.displayWidth(line) > width, width > 1 else { return line }
        return HumanText.prefix(line, displayWidth: width - 1) + "…"
    }
}

/// The shape of `pathctl status --json`: stable field names, those of the Varlink interface.
struct StatusDocument: Encodable {
    let path: WirePath
    let interfaces: [InterfaceDetails]
    let daemon: DaemonStatus
    /// The newest history entry: when the path last changed, and why.
    let lastChange: WireHistoryEntry?
}
