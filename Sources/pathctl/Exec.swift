// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Dispatch
import Locking
import PathModel
import PathMonitor

#if canImport(Glibc)
    import Glibc
#endif

/// `pathctl exec --while unmetered -- CMD ARGS...`: runs a command only while the path meets a condition, paused
/// (or, with `--stop`, ended and started again) while it does not. The decisions are `GatedRun`'s; this verb feeds
/// it pathmond's paths, the command's exit and pathctl's signals, and carries out what it says.
struct Exec: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a command only while the path meets a condition.",
        discussion: """
            The command starts once the condition holds. When it stops holding, the command's process group is \
            paused with SIGSTOP and continued with SIGCONT when it holds again; with --stop it gets SIGTERM \
            instead and is started again later. While pathmond cannot be reached the command stays as it is. \
            SIGINT, SIGTERM and SIGHUP sent to pathctl go to the command. The exit status is the command's \
            (128 + N if signal N ended it). The command runs in a process group of its own, so on a terminal it \
            is in the background: it cannot read from the terminal.
            """)

    /// What must hold for the command to run.
    enum Condition: String, ExpressibleByArgument, CaseIterable {
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

    @OptionGroup var options: ConnectionOptions
    @OptionGroup(title: "Path requirements") var requirements: PathOptions

    @Option(name: .customLong("while"), help: "The condition: unmetered, not-constrained or online.")
    var condition: Condition

    @Flag(help: "End the command with SIGTERM when the condition stops holding, and start it again later.")
    var stop = false

    @Argument(parsing: .captureForPassthrough, help: "The command and its arguments, after --.")
    var command: [String] = []

    mutating func validate() throws {
        if command.first == "--" { command.removeFirst() }
        guard !command.isEmpty else { throw ValidationError("give the command after --, e.g. -- rsync -a src dst") }
    }

    func run() throws {
        // A parent may have left them blocked (test harnesses, some service managers): they must reach pathctl,
        // and the threads started below inherit this mask.
        var forwarded = sigset_t()
        sigemptyset(&forwarded)
        for number in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&forwarded, number) }
        pthread_sigmask(SIG_UNBLOCK, &forwarded, nil)
        let arguments = command
        let events = EventQueue<GatedRun.Event>()
        let condition = condition
        let monitor = NetworkPathMonitor(parameters: requirements.parameters, socketPath: options.socket)
        monitor.start(queue: DispatchQueue(label: "pathctl.exec")) { update in
            // pathmond away (restarting, say): the command stays as it is until a path says otherwise.
            guard case .path(let path) = update else { return }
            events.post(.condition(holds: condition.holds(for: path)))
        }
        defer { monitor.cancel() }
        let signals = [SIGINT, SIGTERM, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { events.post(.signalled(number)) }
            source.resume()
            return source
        }
        defer { signals.forEach { $0.cancel() } }

        var run = GatedRun(mode: stop ? .restart : .pause)
        var child: ChildProcess?
        while true {
            for action in run.handle(events.next()) {
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

/// Events from several threads, taken one at a time on the caller's.
final class EventQueue<Event: Sendable>: Sendable {
    private let events = Locked<[Event]>([])
    private let available = DispatchSemaphore(value: 0)

    func post(_ event: Event) {
        events.withLock { $0.append(event) }
        available.signal()
    }

    /// The oldest event, waiting for one if there is none.
    func next() -> Event {
        available.wait()
        return events.withLock { $0.removeFirst() }
    }
}
