import Locking
// SPDX-License-Identifier: Apache-2.0
import Logging

/// A log line that any client can cause (a protocol violation) is written at most once per `interval`; the next one
/// says how many were held back. A flood of bad messages then costs the journal a few lines a minute, and journald's
/// rate limit never drops pathmond's own messages because of it.
package final class ThrottledLog: Sendable {
    private let logger: Logger
    private let interval: Duration
    private struct State {
        var lastWritten: ContinuousClock.Instant?
        var heldBack = 0
    }
    private let state = Locked(State())

    package init(logger: Logger, interval: Duration = .seconds(60)) {
        self.logger = logger
        self.interval = interval
    }

    /// Logs `message` at notice unless a line was written less than `interval` ago. Returns whether it was written.
    @discardableResult
    package func notice(_ message: @autoclosure () -> String, now: ContinuousClock.Instant = .now) -> Bool {
        let heldBack = state.withLock { state -> Int? in
            if let last = state.lastWritten, now - last < interval {
                state.heldBack += 1
                return nil
            }
            defer {
                state.lastWritten = now
                state.heldBack = 0
            }
            return state.heldBack
        }
        guard let heldBack else { return false }
        var metadata: Logger.Metadata = [:]
        if heldBack > 0 { metadata["heldBack"] = "\(heldBack) like it since the last such line" }
        logger.notice("\(message())", metadata: metadata)
        return true
    }
}
