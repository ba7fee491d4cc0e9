// SPDX-License-Identifier: Apache-2.0
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// Another client calling GetPath in a loop on its own connection, each call timed from send to reply. Samples are
/// filed by what was going on when the call was sent: pathmond's fan-out in progress, the raw fan-out in progress
/// (pathmond idle: the machine's floor for a third thread's call while the fan-out's writer and reader hold both
/// cores), or quiet. Paused, it calls nothing.
final class GetPathTimer: Sendable {
    enum Phase {
        case quiet
        case fanOut
        case rawFanOut
        case paused
    }

    private struct State {
        var phase = Phase.quiet
        var isStopped = false
        var duringFanOut: [UInt64] = []
        var duringRawFanOut: [UInt64] = []
        var quiet: [UInt64] = []
        var failure: String?
    }

    private let state = Locked(State())

    init(socketPath: String, intervalMicroseconds: UInt32) {
        startThread { [self] in
            let socket: VarlinkSocket
            do {
                socket = try VarlinkSocket(path: socketPath)
            } catch {
                state.withLock { $0.failure = "\(error)" }
                return
            }
            while !state.withLock({ $0.isStopped }) {
                let phase = state.withLock { $0.phase }
                if phase == .paused {
                    usleep(max(intervalMicroseconds, 1000))
                    continue
                }
                let start = monotonicNanoseconds()
                guard (try? socket.call(VarlinkSocket.getPathCall)) != nil else {
                    state.withLock { $0.failure = "a GetPath went unanswered for 10 s" }
                    return
                }
                let latency = monotonicNanoseconds() - start
                state.withLock { state in
                    switch phase {
                    case .fanOut: state.duringFanOut.append(latency)
                    case .rawFanOut: state.duringRawFanOut.append(latency)
                    case .quiet, .paused: state.quiet.append(latency)
                    }
                }
                if intervalMicroseconds > 0 { usleep(intervalMicroseconds) }
            }
        }
    }

    /// Files the calls sent from now on under `phase` (or sends none, paused).
    func setPhase(_ phase: Phase) {
        state.withLock { $0.phase = phase }
    }

    /// Stops the loop; the samples so far (nanoseconds) and any failure.
    func stop() -> (duringFanOut: [UInt64], duringRawFanOut: [UInt64], quiet: [UInt64], failure: String?) {
        state.withLock { state in
            state.isStopped = true
            return (state.duringFanOut, state.duringRawFanOut, state.quiet, state.failure)
        }
    }
}
