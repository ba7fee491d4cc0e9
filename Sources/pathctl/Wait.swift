// SPDX-License-Identifier: Apache-2.0
import Locking
import PathModel
import PathmondClient

/// `pathctl wait`: blocks until the path meets the conditions (the same as `check`'s), following pathmond's
/// changes rather than polling. It also waits for pathmond itself, so it can run before the daemon has started.
struct Wait: Verb {
    static let spec = VerbSpec(
        name: "wait",
        abstract: "Wait until the path meets the conditions.",
        discussion: """
            Exits 0 once the conditions hold. With --timeout, gives up after that many seconds with the status \
            `pathctl check` would give for the last path seen (1 unsatisfied, 2 expensive, 3 constrained), or 69 \
            if pathmond was never reached.
            """,
        options: PathConditions.specs + PathOptions.specs + ConnectionOptions.specs + [
            .option("timeout", "Give up after this many seconds (default: wait for ever)."),
            .flag("quiet", short: "q", "Print nothing; the exit status says it all."),
        ])

    var options: ConnectionOptions
    var conditions: PathConditions
    var requirements: PathOptions
    var timeout: Double?
    var quiet: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        options = try ConnectionOptions(arguments)
        conditions = PathConditions(arguments)
        requirements = try PathOptions(arguments)
        quiet = arguments.flag("quiet")
        let seconds = "a number of seconds, 0 or more"
        timeout = try arguments.value("timeout", expected: seconds) {
            Double($0).flatMap { $0 >= 0 && $0 < 1e9 ? $0 : nil }
        }
    }

    func run() throws(ExitCode) {
        let conditions = conditions
        TerminationSignals.unblock()
        let met = WakeUp()
        // The latest verdict: nil until a path arrives, then what `check` would say of it.
        let verdict = Locked<ConditionFailure??>(nil)
        let watch = ReconnectingWatch.path(parameters: requirements.parameters, socketPath: options.socket)
        _ = watch.addConsumer(
            .init(deliver: { update in
                guard case .value(let path) = update else { return }
                let failure = conditions.failure(of: path)
                verdict.withLock { $0 = .some(failure) }
                if failure == nil { met.signal() }
            }))
        defer { watch.cancel() }
        if met.wait(timeout: timeout.map { .nanoseconds(Int64(($0 * 1e9).rounded())) }) { return }
        guard let last = verdict.withLock({ $0 }), let failure = last else {
            if !quiet { printError("pathctl: timed out: pathmond never answered on \(options.socket)") }
            throw ExitCode(69)
        }
        if !quiet { printError("pathctl: timed out: \(failure.message)") }
        throw failure.exitCode
    }
}
