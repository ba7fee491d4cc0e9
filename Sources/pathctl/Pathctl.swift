import ArgumentParser
import PathMonitor

/// pathctl: look at the network path pathmond serves.
@main
struct Pathctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pathctl",
        abstract: "Show and follow the network path served by pathmond.",
        version: "0.1.0",
        subcommands: [
            Status.self, Monitor.self, Check.self, Wait.self, SetConstrained.self, SetExpensive.self, Networks.self,
            Forget.self, Log.self,
        ],
        defaultSubcommand: Status.self
    )
}

/// Options every verb shares.
struct ConnectionOptions: ParsableArguments {
    @Option(help: "The socket pathmond listens on.")
    var socket = PathmondConnection.defaultSocketPath

    @Flag(help: "Print JSON for scripts instead of a table.")
    var json = false
}

/// Turns a client error into a plain message on stderr and a non-zero exit (69, EX_UNAVAILABLE, when the
/// daemon cannot be reached).
func fail(_ error: PathmondClientError) -> ExitCode {
    printError("pathctl: \(error)")
    switch error {
    case .daemonNotRunning, .permissionDenied, .disconnected, .timedOut: return ExitCode(69)
    case .remote(.pathmondPermissionDenied): return ExitCode(77)
    default: return ExitCode.failure
    }
}
