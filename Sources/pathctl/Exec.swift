// SPDX-License-Identifier: Apache-2.0
import Locking
import PathModel
import PathmondClient

#if canImport(Glibc)
    import Glibc
#endif

/// `pathctl exec --while unmetered -- CMD ARGS...`: runs a command only while the path meets a condition, paused
/// (or, with `--stop`, ended and started again) while it does not, the condition damped by the system policy's settle
/// and grace times. The decisions are `GatedRun`'s; this verb feeds it pathmond's paths, the time, the command's exit
/// and pathctl's signals, and carries out what it says.
struct Exec: Verb {
    static let spec = VerbSpec(
        name: "exec",
        abstract: "Run a command only while the path meets a condition.",
        discussion: """
            The condition is damped as pathmond's system policy damps its targets: it counts as holding once it \
            has held for the settle time, and as failing once it has failed for the grace time, so a short dip \
            (a roam through a phone's hotspot) stops nothing. The command starts once the condition counts as \
            holding. When it stops counting, the command's process group is paused with SIGSTOP and continued \
            with SIGCONT when the condition holds again; with --stop it gets SIGTERM instead and is started again \
            later, but if it exits rather than dying of that SIGTERM (any status but 143, 128 + SIGTERM), it has \
            finished and is not started again. While pathmond cannot be reached the command stays as it is. \
            SIGINT, SIGTERM and SIGHUP sent to pathctl go to the command. The exit status is the command's \
            (128 + N if signal N ended it). The command runs in a process group of its own, so on a terminal it \
            is in the background: it cannot read from the terminal.

            pathctl does not read pathmond.conf: the settle and grace times are the built-in defaults of its \
            [discretionary] section (\(TimeSpan.format(SystemPolicyGate.Timing.standard.settle)) and \
            \(TimeSpan.format(SystemPolicyGate.Timing.standard.grace))), whatever the file sets, unless --settle \
            and --grace say otherwise.
            """,
        options: PathOptions.specs + ConnectionOptions.specs + [
            .option(
                "while", "The condition: unmetered, not-constrained or online.",
                completion: .values(Condition.allCases.map(\.rawValue))
            ).with {
                $0.isRequired = true
                $0.listsValues = false
            },
            .flag(
                "stop",
                "End the command with SIGTERM when the condition stops holding, and start it again later (unless it"
                    + " exits by itself: then it has finished)."),
            .option(
                "settle", value: "duration",
                "How long the condition must hold before it counts (default: "
                    + "\(TimeSpan.format(SystemPolicyGate.Timing.standard.settle)))."),
            .option(
                "grace", value: "duration",
                "How long the condition must fail before it counts (default: "
                    + "\(TimeSpan.format(SystemPolicyGate.Timing.standard.grace)))."),
        ],
        arguments: [
            ArgumentSpec(
                name: "command", help: "The command and its arguments, after --.", completion: .command,
                isPassthrough: true)
        ])

    /// What must hold for the command to run.
    enum Condition: String, CaseIterable {
        /// Satisfied, neither expensive nor constrained.
        case unmetered
        /// Satisfied and not on a Low Data Mode network.
        case notConstrained = "not-constrained"
        /// Satisfied.
        case online

        func holds(for path: Path) -> Bool {
            guard path.status == .satisfied else { return false }
            switch self {
            case .unmetered: return !path.isExpensive && !path.isConstrained && path.captivePortal != .captive
            case .notConstrained: return !path.isConstrained
            case .online: return true
            }
        }
    }

    var options: ConnectionOptions
    var requirements: PathOptions
    var condition: Condition
    var stop: Bool
    var settle: String?
    var grace: String?
    var command: [String]

    init(_ arguments: ParsedArguments) throws(UsageError) {
        options = try ConnectionOptions(arguments)
        requirements = try PathOptions(arguments)
        // The parser refuses a command line without it.
        condition =
            try arguments.value("while", expected: "unmetered, not-constrained or online", Condition.init(rawValue:))
            ?? .online
        stop = arguments.flag("stop")
        settle = arguments.value("settle")
        grace = arguments.value("grace")
        command = arguments.positionals
        if command.first == "--" { command.removeFirst() }
        guard !command.isEmpty else { throw UsageError("give the command after --, e.g. -- rsync -a src dst") }
        for (name, value) in [("settle", settle), ("grace", grace)] {
            if let value, TimeSpan.parse(value) == nil {
                throw UsageError("--\(name) wants a duration such as 3s, 500ms or 1min, not \"\(value)\"")
            }
        }
    }

    /// The settle and grace times: the options', or the `[discretionary]` defaults.
    var timing: SystemPolicyGate.Timing {
        let standard = SystemPolicyGate.Timing.standard
        return SystemPolicyGate.Timing(
            settle: settle.flatMap(TimeSpan.parse) ?? standard.settle,
            grace: grace.flatMap(TimeSpan.parse) ?? standard.grace)
    }

    func run() throws(ExitCode) {
        let arguments = command
        let events = EventQueue<GatedRun.Event>()
        // Before any thread is started (each inherits the mask); the command gets them back at their defaults,
        // unblocked (ChildProcess).
        TerminationSignals.take { events.post(.signalled($0)) }
        let condition = condition
        let origin = MonotonicClock.now()
        let now = { @Sendable in MonotonicClock.now() - origin }
        let watch = ReconnectingWatch.path(parameters: requirements.parameters, socketPath: options.socket)
        _ = watch.addConsumer(
            .init(deliver: { update in
                switch update {
                case .value(let path): events.post(.condition(holds: condition.holds(for: path), at: now()))
                // pathmond away (restarting, say): the command stays as it is until a path says otherwise.
                case .unavailable: events.post(.condition(holds: nil, at: now()))
                }
            }))
        defer { watch.cancel() }

        var run = GatedRun(mode: stop ? .restart : .pause, timing: timing)
        var child: ChildProcess?
        while true {
            let event = events.next(within: run.nextDecision.map { $0 - now() }) ?? .timer(at: now())
            for action in run.handle(event) {
                switch action {
                case .start:
                    do {
                        let started = try ChildProcess(arguments)
                        child = started
                        started.waitInBackground { events.post(.exited(status: $0)) }
                    } catch {
                        printError("pathctl: cannot run \(arguments[0]): \(error)")
                        throw ExitCode(127)
                    }
                case .pause: child?.signalGroup(SIGSTOP)
                case .resume: child?.signalGroup(SIGCONT)
                case .terminate: child?.signalGroup(SIGTERM)
                case .forward(let number): child?.signalGroup(number)
                case .exit(let status): throw ExitCode(status)
                }
            }
        }
    }
}
