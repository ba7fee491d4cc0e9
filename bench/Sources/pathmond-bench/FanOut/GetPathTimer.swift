// SPDX-License-Identifier: Apache-2.0
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// Another client calling GetPath in a loop on its own connection, each call timed from send to reply. Samples are
/// filed by what was going on when the call was sent: a fan-out in progress, or quiet (the reference). Paused, it
/// calls nothing, so that pathmond is idle while fan-out's raw reference is measured.
final class GetPathTimer: Sendable {
    private struct State {
        var isFanOut = false
        var isPaused = false
        var isStopped = false
        var duringFanOut: [UInt64] = []
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
                let (isFanOut, isPaused) = state.withLock { ($0.isFanOut, $0.isPaused) }
                if isPaused {
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
                    if isFanOut { state.duringFanOut.append(latency) } else { state.quiet.append(latency) }
                }
                if intervalMicroseconds > 0 { usleep(intervalMicroseconds) }
            }
        }
    }

    /// Files the calls sent from now on as during a fan-out (true) or quiet (false).
    func setFanOut(_ isFanOut: Bool) {
        state.withLock { $0.isFanOut = isFanOut }
    }

    /// Sends no call from now on (true), or calls again (false).
    func setPaused(_ isPaused: Bool) {
        state.withLock { $0.isPaused = isPaused }
    }

    /// Stops the loop; the samples so far (nanoseconds) and any failure.
    func stop() -> (duringFanOut: [UInt64], quiet: [UInt64], failure: String?) {
        state.withLock { state in
            state.isStopped = true
            return (state.duringFanOut, state.quiet, state.failure)
        }
    }
}
