// SPDX-License-Identifier: Apache-2.0
import PathModel

/// What `pathctl exec --while CONDITION` does with its command as the path changes, decided apart from processes,
/// signals and clocks (derive, then act): each event in, the actions to take out. The condition is damped as the
/// system policy damps the path for its targets, by a `SystemPolicyGate`: it counts as holding once it has held for
/// the settle time, and as failing once it has failed for the grace time, so that a roam through a phone's hotspot
/// stops nothing. The command starts once the condition counts as holding; when it stops counting, the command is
/// paused (SIGSTOP to its process group) or, with `--stop`, ended (SIGTERM) and started again when it holds again.
/// A command that ends by itself has finished: the run ends with its status, whatever the path does; only one that
/// pathctl's SIGTERM ended is started again. A signal sent to pathctl goes to the command, which is woken first if
/// paused, so that it can act on it.
///
/// Time arrives as a value (`Duration` since any fixed origin): the caller waits for an event at most until
/// ``nextDecision`` and then hands in `.timer`.
struct GatedRun {
    /// How the command is kept off the path while the condition does not hold.
    enum Mode {
        /// SIGSTOP, then SIGCONT: the command keeps its work and its connections wait.
        case pause
        /// SIGTERM, then a new start: for commands that must not sit stopped (they hold locks, time out).
        case restart
    }

    enum Event: Equatable {
        /// Whether the condition holds for the path pathmond sent at `time`; nil while pathmond cannot be reached
        /// (the command stays as it is, and a change that was waiting to count starts its wait again).
        case condition(holds: Bool?, at: Duration)
        /// `nextDecision` has come: a change that held long enough counts now.
        case timer(at: Duration)
        /// The command ended: its exit status as pathctl passes it on (128 + N for a signal N).
        case exited(status: Int32)
        /// pathctl itself got this signal (SIGINT, SIGTERM, SIGHUP).
        case signalled(Int32)
    }

    enum Action: Equatable {
        case start
        case pause
        case resume
        /// SIGTERM to the command's process group.
        case terminate
        /// Passes a signal on to the command's process group.
        case forward(Int32)
        /// pathctl exits with this status.
        case exit(Int32)
    }

    private enum Command: Equatable {
        case none
        case running
        case paused
        /// Ended with SIGTERM because the condition stopped holding (`.restart`); starts again when it holds.
        case terminating
    }

    /// The status of a command that SIGTERM ended, as a shell says it (128 + 15, SIGTERM's number on Linux); also
    /// what a command that exits "as if killed" on SIGTERM returns, as shells and many runtimes do.
    static let terminatedStatus: Int32 = 128 + 15

    let mode: Mode
    /// The condition, damped. The gate follows two signals alike; the run feeds the condition to both and acts on
    /// the first (`online`): one damping, the system policy's, not a second copy of it.
    private var gate: SystemPolicyGate
    private var command = Command.none
    /// Whether the damped condition holds (false until the gate first decides).
    private var holds = false
    /// A signal came: the run ends with the command's exit, whatever the path does.
    private var isFinishing = false

    init(mode: Mode, timing: SystemPolicyGate.Timing = .standard) {
        self.mode = mode
        self.gate = SystemPolicyGate(timing: timing)
    }

    /// When the next damped decision falls due if nothing else happens; nil when none is pending.
    var nextDecision: Duration? { gate.nextDecision }

    mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .condition(let newValue, let time):
            let verdict = newValue.map { SystemPolicyGate.Verdict(isOnline: $0, isUnmetered: $0) }
            return carryOut(gate.observe(verdict, at: time))
        case .timer(let time):
            return carryOut(gate.advance(to: time))
        case .exited(let status):
            // Only pathctl's own SIGTERM, taken as such, makes a restart; any other end, a clean exit on that
            // SIGTERM included, is the command finishing its work.
            guard command == .terminating, status == Self.terminatedStatus, !isFinishing else { return [.exit(status)] }
            command = holds ? .running : .none
            return holds ? [.start] : []
        case .signalled(let signal):
            isFinishing = true
            switch command {
            case .none: return [.exit(128 + signal)]
            case .paused: return [.forward(signal), .resume]
            case .running, .terminating: return [.forward(signal)]
            }
        }
    }

    private mutating func carryOut(_ decisions: [SystemPolicyGate.Decision]) -> [Action] {
        decisions.flatMap { decision -> [Action] in
            guard case .online(let newValue) = decision else { return [] }
            return conditionChanged(to: newValue)
        }
    }

    private mutating func conditionChanged(to newValue: Bool) -> [Action] {
        holds = newValue
        guard !isFinishing else { return [] }
        switch (command, newValue) {
        case (.none, true):
            command = .running
            return [.start]
        case (.running, false):
            command = mode == .pause ? .paused : .terminating
            return [mode == .pause ? .pause : .terminate]
        case (.paused, true):
            command = .running
            return [.resume]
        default:
            return []
        }
    }
}
