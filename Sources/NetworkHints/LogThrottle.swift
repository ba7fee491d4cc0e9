// SPDX-License-Identifier: Apache-2.0
/// A log line that anyone can cause is written at most once per `interval`; the next one written says how many were
/// held back. A flood then costs the journal a line a minute, and journald's own rate limit never drops pathmond's
/// other messages because of it. Time arrives as a value, so a test steps through it.
struct LogThrottle: Sendable {
    let interval: Duration
    private var lastWritten: ContinuousClock.Instant?
    private var heldBack = 0

    init(interval: Duration = .seconds(60)) {
        self.interval = interval
    }

    /// Whether a line may be written `now`: nil to hold it back, else how many were held back since the last one.
    mutating func admit(at now: ContinuousClock.Instant) -> Int? {
        if let lastWritten, now - lastWritten < interval {
            heldBack += 1
            return nil
        }
        defer {
            lastWritten = now
            heldBack = 0
        }
        return heldBack
    }

    /// `line` if it may be written now, with the count held back before it; nil to hold it back.
    mutating func line(_ line: @autoclosure () -> String, at now: ContinuousClock.Instant = .now) -> String? {
        guard let heldBack = admit(at: now) else { return nil }
        return heldBack == 0 ? line() : line() + " (and \(heldBack) more like it since the last such line)"
    }
}
