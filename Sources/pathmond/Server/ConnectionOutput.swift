// SPDX-License-Identifier: Apache-2.0
import SystemPackage

/// What one connection wrote and its client has not taken yet, counted in the client's user's share
/// (`OutputBudget`), and whether the client keeps up. A slow reader never holds the daemon up: past
/// `highWatermark` bytes, or once its user is over their share, the client is behind: it is not read and its
/// streams keep only state worth sending, until it has taken all but `lowWatermark`.
struct ConnectionOutput {
    static let highWatermark = 256 * 1024
    static let lowWatermark = 32 * 1024

    private var pending = PendingOutput()
    /// What of `pending` is counted in the user's share.
    private var countedBytes = 0
    /// False while the client leaves more unread than it, or its user, may.
    private(set) var isCaughtUp = true

    var isEmpty: Bool { pending.isEmpty }

    /// Writes `bytes` now, or keeps what the socket does not take; throws when the client is gone (EPIPE,
    /// ECONNRESET). A client that sends calls without reading the replies would make them pile up without bound,
    /// so past the high watermark it falls behind.
    mutating func write(
        _ bytes: [UInt8], to descriptor: FileDescriptor, of userID: UInt32, in shared: ClientConnection.Shared
    ) throws(Errno) {
        try pending.write(bytes, to: descriptor)
        let userIsOver = count(of: userID, in: shared)
        if pending.byteCount > Self.highWatermark || (userIsOver && !pending.isEmpty) { isCaughtUp = false }
    }

    /// Writes what waited until the socket refuses more; true once nothing waits.
    mutating func flush(
        to descriptor: FileDescriptor, of userID: UInt32, in shared: ClientConnection.Shared
    ) throws(Errno) -> Bool {
        let drained = try pending.flush(to: descriptor)
        count(of: userID, in: shared)
        return drained
    }

    /// Whether a client that was behind has caught up now (then it is read again, and its streams send what
    /// they kept).
    mutating func catchUp(of userID: UInt32, in shared: ClientConnection.Shared) -> Bool {
        guard !isCaughtUp, pending.byteCount < Self.lowWatermark,
            pending.isEmpty || !shared.outputBudget.value.isOver(userID)
        else { return false }
        isCaughtUp = true
        return true
    }

    /// Drops what waits (the connection closed), and gives it back to the user's share.
    mutating func discard(of userID: UInt32, in shared: ClientConnection.Shared) {
        pending = PendingOutput()
        count(of: userID, in: shared)
    }

    /// Brings the user's share up to date with what waits here; true when the user is over it.
    @discardableResult
    private mutating func count(of userID: UInt32, in shared: ClientConnection.Shared) -> Bool {
        let change = pending.byteCount - countedBytes
        guard change != 0 else { return shared.outputBudget.value.isOver(userID) }
        countedBytes = pending.byteCount
        if change < 0 { shared.memoryReturn.released(-change) }
        return shared.outputBudget.value.add(change, for: userID)
    }
}
