import ArgumentParser
import PathModel
import PathMonitor

/// `pathctl check`: a gate for units and scripts. Exit 0 when the path meets the conditions, else the status that
/// says why (see `ConditionFailure`): `ExecCondition=/usr/bin/pathctl check --unmetered` skips a unit's run on an
/// expensive or constrained path without failing it.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Exit 0 if the path meets the conditions, else a status that says why.",
        discussion: """
            Exit statuses: 0 the conditions hold; 1 the path is unsatisfied; 2 it is expensive (--unmetered); \
            3 it is constrained (--unmetered, --not-constrained); 69 pathmond cannot be reached; 64 a usage error. \
            None is 255, so systemd's ExecCondition= skips the unit rather than failing it, also when pathmond \
            is not running.
            """)

    @OptionGroup var options: ConnectionOptions
    @OptionGroup(title: "Conditions") var conditions: PathConditions
    @OptionGroup(title: "Path requirements") var requirements: PathOptions

    @Flag(name: .shortAndLong, help: "Print nothing; the exit status says it all.")
    var quiet = false

    func run() throws {
        let path: Path
        do {
            let connection = try PathmondConnection(socketPath: options.socket)
            if !quiet { NamespaceCheck.warnIfForeign(connection) }
            path = try connection.path(parameters: requirements.parameters)
        } catch {
            if quiet { throw ExitCode(69) }
            throw fail(error)
        }
        guard let failure = conditions.failure(of: path) else { return }
        if !quiet { printError("pathctl: \(failure.message)") }
        throw failure.exitCode
    }
}
