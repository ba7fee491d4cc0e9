// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol

/// Streams new history entries to one connection (GetHistory with "more"), one reply per entry. Unlike a path,
/// every entry counts, so none is dropped for a slow reader: while the client is not reading they wait, up to
/// `maximumBacklog`; a client that far behind is closed (it can call again and read the stored entries).
///
/// The stream starts held: the connection first sends the stored entries (`HistoryReplyCursor`, a share per turn),
/// and entries recorded meanwhile wait in the backlog until `release()`.
///
/// @unchecked Sendable: the history holds followers across threads, but entries are recorded, and the stream is
/// made, fed and released, on the daemon's main loop only.
final class HistoryChannelStream: HistoryFollower, @unchecked Sendable {
    /// Entries a stalled client may fall behind by: a full default history.
    static let maximumBacklog = PathHistory.defaultCapacity

    private let filter: PathHistoryQuery
    private let output: any StreamOutput
    private var backlog: [PathHistoryEntry] = []
    private var isHeld = true
    /// More entries came while held than a stalled client may owe: the connection ends on release.
    private var overflowed = false

    init(query: PathHistoryQuery, output: any StreamOutput) {
        // New entries are newer than any `since`; only the interface filter applies to them.
        self.filter = PathHistoryQuery(interface: query.interface)
        self.output = output
    }

    func deliver(_ entry: PathHistoryEntry) {
        guard filter.matches(entry), !overflowed else { return }
        guard !isHeld, backlog.isEmpty, output.isWritable else {
            guard backlog.count < Self.maximumBacklog else {
                // Held, the connection is not the main loop's to close yet.
                if isHeld { overflowed = true } else { output.close() }
                backlog = []
                return
            }
            backlog.append(entry)
            return
        }
        write(entry)
    }

    /// Starts sending: the connection is on the main loop now.
    func release() {
        isHeld = false
        if overflowed { return output.close() }
        flushPending()
    }

    /// Sends what waited once the client reads again.
    func flushPending() {
        guard !isHeld else { return }
        var sent = 0
        while sent < backlog.count, output.isWritable {
            write(backlog[sent])
            sent += 1
        }
        backlog.removeFirst(sent)
    }

    private func write(_ entry: PathHistoryEntry) {
        output.write(StreamedReplyWriter.historyReply(WireHistoryEntry(entry)))
    }
}
