// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Dispatch
import Locking
import PathMonitor

/// `pathctl wait`: blocks until the path meets the conditions (the same as `check`'s), following pathmond's
/// changes rather than polling. It also waits for pathmond itself, so it can run before the daemon has started.
struct Wait: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Wait until the path meets the conditions.",
        discussion: """
            Exits 0 once the conditions hold. With --timeout, gives up after that many seconds with the status \
            `pathctl check` would give for the last path seen (1 unsatisfied, 2 expensive, 3 constrained), or 69 \
            if pathmond was never reached.
            """)

    @OptionGroup var options: ConnectionOptions
    @OptionGroup(title: "Conditions") var conditions: PathConditions
    @OptionGroup(title: "Path requirements") var requirements: PathOptions

    @Option(help: "Give up after this many seconds (default: wait for ever).")
    var timeout: Double?

    @Flag(name: .shortAndLong, help: "Print nothing; the exit status says it all.")
    var quiet = false

    func validate() throws {
        if let timeout, !(timeout >= 0 && timeout < 1e9) {
            throw ValidationError("--timeout takes a number of seconds, 0 or more")
        }
    }

    func run() throws {
        let conditions = conditions
        let met = DispatchSemaphore(value: 0)
        // The latest verdict: nil until a path arrives, then what `check` would say of it.
        let verdict = Locked<ConditionFailure??>(nil)
        let monitor = NetworkPathMonitor(parameters: requirements.parameters, socketPath: options.socket)
        monitor.start(queue: DispatchQueue(label: "pathctl.wait")) { update in
            guard case .path(let path) = update else { return }
            let failure = conditions.failure(of: path)
            verdict.withLock { $0 = .some(failure) }
            if failure == nil { met.signal() }
        }
        defer { monitor.cancel() }
        let deadline: DispatchTime = timeout.map { .now() + $0 } ?? .distantFuture
        if met.wait(timeout: deadline) == .success { return }
        guard let last = verdict.withLock({ $0 }), let failure = last else {
            if !quiet { printError("pathctl: timed out: pathmond never answered on \(options.socket)") }
            throw ExitCode(69)
        }
        if !quiet { printError("pathctl: timed out: \(failure.message)") }
        throw failure.exitCode
    }
}
