import PathModel
import PathProtocol

/// Streams new history entries to one connection (GetHistory with "more"), one reply per entry. Unlike a path,
/// every entry counts, so none is dropped for a slow reader: while the client is not reading they wait, up to
/// `maximumBacklog`; a client that far behind is closed (it can call again and read the stored entries).
///
/// @unchecked Sendable: the history holds followers across threads, but entries are recorded, and this runs, on
/// the daemon's main loop only.
final class HistoryChannelStream: HistoryFollower, @unchecked Sendable {
    /// Entries a stalled client may fall behind by: a full default history.
    static let maximumBacklog = PathHistory.defaultCapacity

    private let filter: PathHistoryQuery
    private let output: any StreamOutput
    private var backlog: [PathHistoryEntry] = []

    init(query: PathHistoryQuery, output: any StreamOutput) {
        // New entries are newer than any `since`; only the interface filter applies to them.
        self.filter = PathHistoryQuery(interface: query.interface)
        self.output = output
    }

    /// The reply that starts the stream: the stored entries a query selects.
    static func storedReply(_ entries: [PathHistoryEntry], continues: Bool) -> [UInt8] {
        let codec = VarlinkCodec()
        var kept = entries[...]
        while true {
            let bytes = codec.encodeReply(
                Methods.HistoryReply(entries: kept.map(WireHistoryEntry.init)), continues: continues)
            // A client reads replies up to maximumReplySize: a very large history is cut to its newest entries.
            guard bytes.count > VarlinkCodec.maximumReplySize, !kept.isEmpty else { return bytes }
            kept = kept.dropFirst(kept.count / 2 + 1)
        }
    }

    func deliver(_ entry: PathHistoryEntry) {
        guard filter.matches(entry) else { return }
        guard backlog.isEmpty, output.isWritable else {
            guard backlog.count < Self.maximumBacklog else {
                output.close()
                return
            }
            backlog.append(entry)
            return
        }
        write(entry)
    }

    /// Sends what waited once the client reads again.
    func flushPending() {
        while !backlog.isEmpty, output.isWritable {
            write(backlog.removeFirst())
        }
    }

    private func write(_ entry: PathHistoryEntry) {
        output.write(StreamedReplyWriter.historyReply(WireHistoryEntry(entry)))
    }
}
