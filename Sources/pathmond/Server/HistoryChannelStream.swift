import NIOCore
import PathModel
import PathProtocol

/// Streams new history entries to one channel (GetHistory with "more"), one reply per entry. Unlike a path,
/// every entry counts, so none is dropped for a slow reader: while the channel is not writable they wait, up to
/// `maximumBacklog`; a client that far behind is closed (it can call again and read the stored entries).
final class HistoryChannelStream: HistoryFollower, Sendable {
    /// Entries a stalled client may fall behind by: a full default history.
    static let maximumBacklog = PathHistory.defaultCapacity

    private let filter: PathHistoryQuery
    private let channel: any Channel
    /// Touched only on the channel's event loop.
    private let backlog: NIOLoopBoundBox<[PathHistoryEntry]>

    init(query: PathHistoryQuery, channel: any Channel) {
        // New entries are newer than any `since`; only the interface filter applies to them.
        self.filter = PathHistoryQuery(interface: query.interface)
        self.channel = channel
        self.backlog = NIOLoopBoundBox([], eventLoop: channel.eventLoop)
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
        if channel.eventLoop.inEventLoop {
            send(entry)
        } else {
            channel.eventLoop.execute { self.send(entry) }
        }
    }

    /// On the event loop only.
    private func send(_ entry: PathHistoryEntry) {
        guard backlog.value.isEmpty, channel.isWritable else {
            guard backlog.value.count < Self.maximumBacklog else {
                channel.close(promise: nil)
                return
            }
            backlog.value.append(entry)
            return
        }
        write(entry)
    }

    /// Sends what waited once the channel is writable again. On the event loop only.
    func flushPending() {
        while !backlog.value.isEmpty, channel.isWritable {
            write(backlog.value.removeFirst())
        }
    }

    private func write(_ entry: PathHistoryEntry) {
        let bytes = StreamedReplyWriter.historyReply(WireHistoryEntry(entry))
        channel.writeAndFlush(channel.allocator.buffer(bytes: bytes), promise: nil)
    }
}
