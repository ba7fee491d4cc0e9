// SPDX-License-Identifier: Apache-2.0
/// What `pathctl exec --while CONDITION` does with its command as the path changes, decided apart from processes
/// and signals (derive, then act): each event in, the actions to take out. The command starts once the condition
/// holds; when it stops holding the command is paused (SIGSTOP to its process group) or, with `--stop`, ended
/// (SIGTERM) and started again when the condition holds again; the command's own exit ends the run with its
/// status. A signal sent to pathctl goes to the command, which is woken first if paused, so that it can act on it.
struct GatedRun {
    /// How the command is kept off the path while the condition does not hold.
    enum Mode {
        /// SIGSTOP, then SIGCONT: the command keeps its work and its connections wait.
        case pause
        /// SIGTERM, then a new start: for commands that must not sit stopped (they hold locks, time out).
        case restart
    }

    enum Event: Equatable {
        /// Whether the condition holds for the path pathmond sent.
        case condition(holds: Bool)
        /// The command ended: its exit status as pathctl passes it on (128 + N for a signal N).
        case exited(status: Int32)
        /// pathctl itself got this signal (SIGINT, SIGTERM, SIGHUP).
        case signalled(Int32)
    }

    enum Action: Equatable {
        case start
        case pause
        case resume
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

    let mode: Mode
    private var command = Command.none
    private var holds = false
    /// A signal came: the run ends with the command's exit, whatever the path does.
    private var isFinishing = false

    init(mode: Mode) {
        self.mode = mode
    }

    mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .condition(let newValue):
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
        case .exited(let status):
            guard command == .terminating, !isFinishing else { return [.exit(status)] }
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
}
