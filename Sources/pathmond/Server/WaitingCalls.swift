// SPDX-License-Identifier: Apache-2.0
/// One connection's calls that arrived while an earlier call's reply was outstanding or the client left its
/// replies unread: Varlink answers calls in the order they came.
///
/// With `pauseThreshold` calls queued, reading from the client pauses until the queue drains: back-pressure, not
/// disconnection, since pipelining calls is what Varlink allows (200 oneway SetConstrained calls in a row once cost
/// the client its connection). What one read already brought in is still queued, so the queue is bounded by the
/// read buffer, not by this number.
struct WaitingCalls {
    static let pauseThreshold = 64

    private var frames: [[UInt8]] = []
    /// Whether reading paused for the queue (not because replies went unread); until it is empty again.
    private(set) var isFull = false

    var isEmpty: Bool { frames.isEmpty }

    /// Roughly what the queue holds in memory.
    var byteCount: Int { frames.reduce(0) { $0 + $1.count + 32 } }

    mutating func append(_ frame: [UInt8]) {
        frames.append(frame)
        if frames.count >= Self.pauseThreshold { isFull = true }
    }

    /// The oldest call; the queue is not empty.
    mutating func removeFirst() -> [UInt8] {
        let frame = frames.removeFirst()
        if frames.isEmpty { isFull = false }
        return frame
    }

    mutating func removeAll() {
        frames = []
        isFull = false
    }
}
