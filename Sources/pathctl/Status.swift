import ArgumentParser
import PathModel
import PathMonitor
import PathProtocol

/// `pathctl status`: the path and every interface.
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the network path and each interface.")

    @OptionGroup var options: ConnectionOptions
    @OptionGroup(title: "Path requirements") var requirements: PathOptions

    func run() throws {
        do {
            let connection = try PathmondConnection(socketPath: options.socket)
            let path = try connection.path(parameters: requirements.parameters)
            let interfaces = try connection.interfaces()
            let status = try connection.status()
            // A daemon without history (older) leaves the line out.
            let lastChange = try? connection.history(PathHistoryQuery(limit: 1)).last
            if options.json {
                print(
                    JSONOutput.encode(
                        StatusDocument(
                            path: WirePath(path), interfaces: interfaces, daemon: status, lastChange: lastChange)))
            } else {
                print(StatusTable.render(path: path, interfaces: interfaces, status: status))
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
    let interfaces: [WireInterface]
    let daemon: WireDaemonStatus
    /// The newest history entry: when the path last changed, and why.
    let lastChange: WireHistoryEntry?
}
