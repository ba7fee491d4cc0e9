// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import PathmondClient

#if canImport(Glibc)
    import Glibc
#endif

/// `pathctl check`: a gate for units and scripts. Exit 0 when the path meets the conditions, else the status that
/// says why (see `ConditionFailure`): `ExecCondition=/usr/bin/pathctl check --unmetered` skips a unit's run on an
/// expensive or constrained path without failing it.
struct Check: Verb {
    static let spec = VerbSpec(
        name: "check",
        abstract: "Exit 0 if the path meets the conditions, else a status that says why.",
        discussion: """
            Exit statuses: 0 the conditions hold; 1 the path is unsatisfied; 2 it is expensive, that is metered \
            (--unmetered); 3 it is constrained (--unmetered, --not-constrained); 4 it is held at a captive portal \
            (--unmetered); 69 pathmond cannot be reached; 64 a usage error. \
            None is 255, so systemd's ExecCondition= skips the unit rather than failing it, also when pathmond \
            is not running. Run as a service's ExecCondition= command (as root or as the unit's User=), an \
            expensive or constrained path also defers the run: pathmond-dispatcher starts the unit once when the \
            path turns cheap (see 'pathctl deferred'). A run that cannot be deferred says why on stderr (the \
            unit's journal).
            """,
        options: PathConditions.specs + PathOptions.specs + ConnectionOptions.specs + [
            .flag("quiet", short: "q", "Print nothing; the exit status says it all."),
            .option(
                "max-deferral", value: "duration",
                "A deferred unit that has waited this long runs anyway, on an expensive or constrained path (exit 0;"
                    + " the dispatcher's journal says why), e.g. 14d or 12h; not while the network's data limit is"
                    + " used up (pathctl set-limit), unless --max-deferral-past-limit."),
            .flag(
                "max-deferral-past-limit",
                "Let --max-deferral run the unit even on a network whose data limit is used up this cycle."),
            .option("dispatcher-socket", "The dispatcher's socket.", completion: .file).with { $0.isHidden = true },
        ])

    var options: ConnectionOptions
    var conditions: PathConditions
    var requirements: PathOptions
    var quiet: Bool
    var maxDeferral: String?
    var maxDeferralPastLimit: Bool
    var dispatcherSocket: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        options = try ConnectionOptions(arguments)
        conditions = PathConditions(arguments)
        requirements = try PathOptions(arguments)
        quiet = arguments.flag("quiet")
        maxDeferral = arguments.value("max-deferral")
        maxDeferralPastLimit = arguments.flag("max-deferral-past-limit")
        dispatcherSocket = arguments.value("dispatcher-socket") ?? DispatcherProtocol.socketPath
        if let maxDeferral, TimeSpan.parse(maxDeferral) == nil {
            throw UsageError("--max-deferral takes a duration such as 14d, 12h or 30min, not '\(maxDeferral)'")
        }
    }

    func run() throws(ExitCode) {
        let path: Path
        do {
            let connection = try PathmondConnection(socketPath: options.socket)
            path = try connection.path(parameters: requirements.parameters)
            // After the path: the one call a gate makes is GetPath; GetStatus only where the namespaces cannot be
            // compared locally.
            if !quiet { NamespaceCheck.warnIfForeign(connection) }
        } catch {
            if quiet { throw ExitCode(69) }
            throw fail(error)
        }
        guard let failure = conditions.failure(of: path) else { return }
        if !quiet { printError("pathctl: \(failure.message)") }
        if failure == .expensive || failure == .constrained || failure == .captivePortal,
            deferRun(limitUsedUp: path.dataLimit?.level == .exceeded)
        {
            return
        }
        throw failure.exitCode
    }

    /// The cap sent to the dispatcher, in seconds: --max-deferral's, except on a network whose data limit is used up
    /// (unless `pastLimit`, --max-deferral-past-limit), where the run waits however long it has waited.
    static func deferralCap(_ maxDeferral: String?, limitUsedUp: Bool, pastLimit: Bool) -> Int64? {
        guard !limitUsedUp || pastLimit else { return nil }
        return maxDeferral.flatMap(TimeSpan.parse).map { $0.components.seconds }
    }

    /// On an expensive or constrained path: registers the caller's unit with pathmond-dispatcher, which finds the
    /// unit from this process's cgroup and checks with systemd that this process is its ExecCondition= command. A
    /// refusal is printed when this runs in a unit (systemd's $INVOCATION_ID): the unit's journal then says why its
    /// run is not deferred; a shell's `pathctl check` defers nothing and says nothing more. True when the unit has
    /// waited longer than --max-deferral, so that the run goes ahead now.
    ///
    /// On a network whose data limit is used up, --max-deferral is not passed on (unless
    /// --max-deferral-past-limit): a plan that is used up is worth no run, however long it waited.
    private func deferRun(limitUsedUp: Bool) -> Bool {
        let inUnit = getenv("INVOCATION_ID") != nil
        let cap = Self.deferralCap(maxDeferral, limitUsedUp: limitUsedUp, pastLimit: maxDeferralPastLimit)
        if cap == nil && maxDeferral != nil && !quiet {
            printError(
                "pathctl: the network's data limit is used up: --max-deferral does not apply until the cycle resets"
                    + " (--max-deferral-past-limit overrides)")
        }
        let reply: DispatcherProtocol.DeferReply
        do {
            reply = try DispatcherClient(socketPath: dispatcherSocket).call(
                .deferRun, DispatcherProtocol.DeferParameters(maxDeferralSeconds: cap),
                as: DispatcherProtocol.DeferReply.self)
        } catch {
            var refused = false
            switch error {
            case .refused, .remote(DispatcherProtocol.ErrorName.notACondition): refused = true
            default: break
            }
            // Said in a unit (to its journal), or to root as before; a user's shell hears nothing of the dispatcher.
            guard !quiet, inUnit || (!refused && geteuid() == 0) else { return false }
            if case .permissionDenied = error {
                // A dispatcher from before users could defer: its socket is root's alone.
                printError(
                    "pathctl: the run is not deferred: this pathmond-dispatcher accepts only root; use "
                        + "ExecCondition=+/usr/bin/pathctl check ...")
            } else {
                printError("pathctl: the run is not deferred: \(error)")
            }
            return false
        }
        let waited = TimeSpan.format(.seconds(max(0, Int64(time(nil)) - reply.deferral.since)))
        if reply.runAnyway {
            if !quiet {
                printError(
                    "pathctl: \(reply.deferral.unit) has waited \(waited) for a cheap path, longer than "
                        + "--max-deferral \(maxDeferral ?? "0"): it runs now")
            }
            return true
        }
        if !quiet {
            printError(
                "pathctl: the run of \(reply.deferral.unit) is deferred until the path is cheap (waiting since "
                    + "\(LogTime.format(reply.deferral.since * 1_000_000)), \(reply.deferral.skips) skipped)")
        }
        return false
    }
}
