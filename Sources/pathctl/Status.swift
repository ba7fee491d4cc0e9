import ArgumentParser
import PathModel
import PathMonitor
import PathProtocol

/// `pathctl status`: the path and every interface.
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the network path and each interface.",
        discussion: "The path requirements narrow the whole output: the path, and the interfaces listed.")

    @OptionGroup var options: ConnectionOptions
    @OptionGroup(title: "Path requirements") var requirements: PathOptions

    func run() throws {
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
                if let lastChange { print("\nLast change: " + LogLine.text(lastChange)) }
            }
        } catch {
            throw fail(error)
        }
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
