import ArgumentParser
import Dispatch
import PathModel
import PathMonitor
import PathProtocol

/// `pathctl monitor`: one line per path change until interrupted.
struct Monitor: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the path, then every change, until interrupted.")

    @OptionGroup var options: ConnectionOptions
    @OptionGroup(title: "Path requirements") var requirements: PathOptions

    func run() throws {
        // Fail clearly, and at once, if the daemon is not there to begin with; after that, outages are reported
        // as lines and the monitor reconnects.
        do {
            _ = try PathmondConnection(socketPath: options.socket)
        } catch {
            throw fail(error)
        }
        let json = options.json
        let monitor = PathMonitor(parameters: requirements.parameters, socketPath: options.socket)
        monitor.start(queue: .main) { update in
            writeLine(json ? MonitorLine.json(update) : MonitorLine.text(update))
        }
        dispatchMain()
    }
}

/// How `pathctl monitor` prints one update.
enum MonitorLine {
    static func text(_ update: PathMonitor.Update) -> String {
        switch update {
        case .path(let path): return StatusTable.summary(path)
        case .unavailable(let error): return "unknown: \(error)"
        }
    }

    static func json(_ update: PathMonitor.Update) -> String {
        switch update {
        case .path(let path): return JSONOutput.encode(WirePath(path), pretty: false)
        case .unavailable(let error):
            return JSONOutput.encode(["status": "unknown", "error": "\(error)"], pretty: false)
        }
    }
}
