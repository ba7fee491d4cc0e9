// SPDX-License-Identifier: Apache-2.0
import Dispatch
import PathModel
import PathMonitor
import PathProtocol

/// `pathctl monitor`: one line per path change until interrupted.
struct Monitor: Verb {
    static let spec = VerbSpec(
        name: "monitor", abstract: "Print the path, then every change, until interrupted.",
        options: ConnectionOptions.specs + PathOptions.specs)

    var options: ConnectionOptions
    var requirements: PathOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        options = try ConnectionOptions(arguments)
        requirements = try PathOptions(arguments)
    }

    func run() throws(ExitCode) {
        // Fail clearly, and at once, if the daemon is not there to begin with; after that, outages are reported
        // as lines and the monitor reconnects.
        do {
            _ = try options.connect()
        } catch {
            throw fail(error)
        }
        // One update per line unless asked for pretty: `pathctl monitor --json | jq` reads a stream of values.
        let mode = options.jsonMode
        let monitor = NetworkPathMonitor(parameters: requirements.parameters, socketPath: options.socket)
        monitor.start(queue: .main) { update in
            writeLine(mode.map { MonitorLine.json(update, mode: $0) } ?? MonitorLine.text(update))
        }
        dispatchMain()
    }
}

/// How `pathctl monitor` prints one update.
enum MonitorLine {
    static func text(_ update: NetworkPathMonitor.Update) -> String {
        switch update {
        case .path(let path): return StatusTable.summary(path)
        case .unavailable(let error): return "unknown: " + HumanText.escaped("\(error)")
        }
    }

    static func json(_ update: NetworkPathMonitor.Update, mode: JSONMode) -> String {
        switch update {
        case .path(let path): return JSONOutput.encode(WirePath(path), mode: mode)
        case .unavailable(let error):
            return JSONOutput.encode(["status": "unknown", "error": "\(error)"], mode: mode)
        }
    }
}
