// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import SDEvent

/// Streams new history entries to one connection (GetHistory with "more"), one reply per entry. Unlike a path,
/// every entry counts, so none is dropped for a slow reader: while the client is not reading they wait, up to
/// `maximumBacklog`; a client that far behind is closed (it can call again and read the stored entries).
///
/// The stream starts held: the connection first sends the stored entries (`HistoryReplyCursor`, a share per turn),
/// and entries recorded meanwhile wait in the backlog until `release()`.
///
/// The history holds followers across threads, but entries are recorded, and the stream is made, fed and released,
/// on the daemon's main loop only: the state is `LoopBound`, so a call from anywhere else traps.
final class HistoryChannelStream: HistoryFollower {
    /// Entries a stalled client may fall behind by: a full default history.
    static let maximumBacklog = PathHistory.defaultCapacity

    private let filter: PathHistoryQuery
    private let state: LoopBound<State>

    fileprivate struct State {
        let output: any StreamOutput
        /// Entries not yet sent, from `head` on (sent ones are dropped when the backlog empties).
        var backlog: [PathHistoryEntry] = []
        var head = 0
        var isHeld = true
        /// More entries came while held than a stalled client may owe: the connection ends on release.
        var overflowed = false

        var waiting: Int { backlog.count - head }
    }

    init(query: PathHistoryQuery, output: any StreamOutput, loop: SDEventLoop) {
        // New entries are newer than any `since`; only the interface filter applies to them.
        self.filter = PathHistoryQuery(interface: query.interface)
        self.state = LoopBound(State(output: output), on: loop)
    }

    func deliver(_ entry: PathHistoryEntry) {
        guard filter.matches(entry) else { return }
        // Decided inside the loop-bound state, written outside it: a write that fails closes the connection,
        // which unfollows this stream.
        let (output, action) = state.value.admit(entry)
        switch action {
        case .none: return
        case .write: write(entry, to: output)
        case .close: output.close()
        }
    }

    /// Starts sending: the connection is on the main loop now.
    func release() {
        let (output, overflowed) = state.value.release()
        if overflowed { return output.close() }
        flushPending()
    }

    /// Sends what waited once the client reads again.
    func flushPending() {
        while let (output, entry) = state.value.next() {
            write(entry, to: output)
        }
    }

    private func write(_ entry: PathHistoryEntry, to output: any StreamOutput) {
        output.write(StreamedReplyWriter.historyReply(entry))
    }
}

extension HistoryChannelStream.State {
    enum Action { case none, write, close }

    /// What to do with a new entry: write it now, keep it for later, or end a client too far behind.
    mutating func admit(_ entry: PathHistoryEntry) -> (any StreamOutput, Action) {
        guard !overflowed else { return (output, .none) }
        guard !isHeld, waiting == 0, output.isWritable else {
            guard waiting < HistoryChannelStream.maximumBacklog else {
                backlog = []
                head = 0
                // Held, the connection is not the main loop's to close yet.
                if isHeld {
                    overflowed = true
                    return (output, .none)
                }
                return (output, .close)
            }
            backlog.append(entry)
            return (output, .none)
        }
        return (output, .write)
    }

    /// Ends the hold; true when the connection is to end instead.
    mutating func release() -> (any StreamOutput, Bool) {
        isHeld = false
        return (output, overflowed)
    }

    /// The next waiting entry to write, while the client reads.
    mutating func next() -> (any StreamOutput, PathHistoryEntry)? {
        guard !isHeld, waiting > 0, output.isWritable else { return nil }
        let entry = backlog[head]
        head += 1
        if head == backlog.count {
            backlog.removeAll(keepingCapacity: false)
            head = 0
        }
        return (output, entry)
    }
}
