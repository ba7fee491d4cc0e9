// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import PathmondClient

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
        // Printed here, off the watch's thread: a reader that stops reading holds this thread, not the watch.
        TerminationSignals.unblock()
        let updates = EventQueue<WatchEvent<Path>>()
        let watch = ReconnectingWatch.path(parameters: requirements.parameters, socketPath: options.socket)
        _ = watch.addConsumer(.init(deliver: updates.post))
        while let update = updates.next() {
            writeLine(mode.map { MonitorLine.json(update, mode: $0) } ?? MonitorLine.text(update))
        }
    }
}

/// How `pathctl monitor` prints one update.
enum MonitorLine {
    static func text(_ update: WatchEvent<Path>) -> String {
        switch update {
        case .value(let path): return StatusTable.summary(path)
        case .unavailable(let error): return "unknown: " + HumanText.escaped("\(error)")
        }
    }

    static func json(_ update: WatchEvent<Path>, mode: JSONMode) -> String {
        switch update {
        case .value(let path): return JSONOutput.encode(WirePath(path), mode: mode)
        case .unavailable(let error):
            return JSONOutput.encode(["status": "unknown", "error": "\(error)"], mode: mode)
        }
    }
}
