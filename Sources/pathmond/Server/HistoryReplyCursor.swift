// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// One GetHistory reply, written from the shared encoding (`EncodedHistory`) straight to the client's socket as it
/// takes the bytes: nothing is copied per connection, and a client that does not read costs a position, not a
/// reply. Each turn does bounded work (`entriesPerTurn` entries looked at, `bytesPerTurn` bytes written), so that
/// a thousand callers are served in turns, between which every other client's call is answered: the cost of a
/// reply falls on the connection that asked for it.
///
/// First the entries the query selects are sized from the newest back, so that the reply holds the newest that
/// fit in what a client reads (`Methods.getHistory.maximumReplySize`) and says `"truncated":true` when older ones were
/// left out; then the reply is written.
final class HistoryReplyCursor {
    static let entriesPerTurn = 8192
    static let bytesPerTurn = 256 * 1024
    /// iovecs per writev(2).
    private static let piecesPerWrite = 64

    enum Progress: Equatable {
        /// The whole reply is written.
        case finished
        /// The socket takes no more now: wait until it is writable.
        case blocked
        /// This turn's share is used: come back on the next turn of the loop.
        case yielded
        /// The client is gone.
        case failed(Errno)
    }

    private let history: EncodedHistory
    private let since: Int64?
    /// The interface's name between NULs, as `EncodedHistorySegment.names` holds it.
    private let needle: [UInt8]?
    private let limit: Int
    private let continues: Bool

    private enum Stage {
        /// Looking back from `next` (exclusive) for where the reply starts.
        case sizing(next: Int, matched: Int, bytes: Int)
        case header
        /// Entries from `next`; `written` of them so far (a comma goes before every one but the first).
        case entries(next: Int, written: Int)
        case trailer
        case done
    }
    private var stage: Stage
    /// Where the reply starts, once sized; whether older entries were left out.
    private var start = 0
    private(set) var isTruncated = false
    /// Owned: written once in `size()`, freed in deinit; the pieces point into them.
    private var header = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 1)
    private var trailer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 1)
    private var headerCount = 0
    private var trailerCount = 0
    /// What a partial write left of one piece, written before anything else.
    private var remainder: (piece: Piece, offset: Int)?

    init(history: EncodedHistory, query: PathHistoryQuery, continues: Bool) {
        self.history = history
        self.since = query.sinceWallMicroseconds
        self.needle = query.interface.map { [0] + Array($0.utf8) + [0] }
        self.limit = query.limit.map { max(0, $0) } ?? Int.max
        self.continues = continues
        stage = .sizing(next: history.count, matched: 0, bytes: 0)
    }

    deinit {
        header.deallocate()
        trailer.deallocate()
    }

    private func matches(_ segment: EncodedHistorySegment, _ local: Int) -> Bool {
        if let since, segment.wallMicroseconds[local] < since { return false }
        if let needle, !segment.concerns(local, needle: needle) { return false }
        return true
    }

    /// Does this turn's share: sizes, or writes as much as the socket takes.
    func write(to descriptor: FileDescriptor) -> Progress {
        if case .sizing = stage {
            guard size() else { return .yielded }
        }
        var budget = Self.bytesPerTurn
        while budget > 0 {
            guard let pieces = nextPieces() else { return .yielded }
            if pieces.isEmpty { return .finished }
            var vectors = pieces.map {
                iovec(iov_base: UnsafeMutableRawPointer(mutating: $0.bytes.baseAddress), iov_len: $0.bytes.count)
            }
            let written = writev(descriptor.rawValue, &vectors, Int32(vectors.count))
            if written < 0 {
                let error = Errno(rawValue: errno)
                if error == .wouldBlock || error == .resourceTemporarilyUnavailable { return .blocked }
                if error == .interrupted { continue }
                return .failed(error)
            }
            advance(past: pieces, written: written)
            budget -= written
            if written < pieces.reduce(0, { $0 + $1.bytes.count }) { return .blocked }
        }
        if case .done = stage, remainder == nil { return .finished }
        return .yielded
    }

    /// Looks back for the reply's start, a turn's share at a time; true once found.
    private func size() -> Bool {
        guard case .sizing(var next, var matched, var bytes) = stage else { return true }
        // Room for the header, the trailer and the NUL.
        let room = Methods.getHistory.maximumReplySize - 128
        var looked = 0
        while next > 0 {
            if looked == Self.entriesPerTurn {
                stage = .sizing(next: next, matched: matched, bytes: bytes)
                return false
            }
            if matched == limit { break }
            looked += 1
            let (segment, local) = history.locate(next - 1)
            guard matches(segment, local) else {
                next -= 1
                continue
            }
            let size = segment.entry(local).count + 1
            if bytes + size > room {
                isTruncated = true
                break
            }
            bytes += size
            matched += 1
            next -= 1
        }
        start = next
        let opening = continues ? "{\"continues\":true,\"parameters\":{\"entries\":[" : "{\"parameters\":{\"entries\":["
        let closing = Array((isTruncated ? "],\"truncated\":true}}" : "]}}").utf8) + [0]
        header.copyBytes(from: opening.utf8)
        trailer.copyBytes(from: closing)
        headerCount = opening.utf8.count
        trailerCount = closing.count
        stage = .header
        return true
    }

    /// A run of bytes to write and the stage once it is written.
    private struct Piece {
        var bytes: UnsafeRawBufferPointer
        var after: Stage
    }

    /// Never written or freed: safe to share.
    nonisolated(unsafe) private static let comma: UnsafeRawBufferPointer = {
        let byte = UnsafeMutableRawBufferPointer.allocate(byteCount: 1, alignment: 1)
        byte[0] = UInt8(ascii: ",")
        return UnsafeRawBufferPointer(byte)
    }()

    /// The next pieces from where the reply stands, up to a writev's worth and this turn's entries; none once the
    /// reply is written; nil when this turn's entries were looked at without finding one to send.
    private func nextPieces() -> [Piece]? {
        var pieces: [Piece] = []
        var stage = self.stage
        if let remainder {
            pieces.append(
                Piece(
                    bytes: UnsafeRawBufferPointer(rebasing: remainder.piece.bytes[remainder.offset...]),
                    after: remainder.piece.after))
            stage = remainder.piece.after
        }
        var looked = 0
        while pieces.count < Self.piecesPerWrite - 1 {
            switch stage {
            case .sizing, .done:
                return pieces
            case .header:
                stage = .entries(next: start, written: 0)
                pieces.append(Piece(bytes: UnsafeRawBufferPointer(rebasing: header[..<headerCount]), after: stage))
            case .entries(var next, let written):
                while next < history.count, looked < Self.entriesPerTurn {
                    let (segment, local) = history.locate(next)
                    if matches(segment, local) { break }
                    next += 1
                    looked += 1
                }
                guard next < history.count else {
                    stage = .trailer
                    continue
                }
                guard looked < Self.entriesPerTurn else {
                    guard pieces.isEmpty else { return pieces }
                    self.stage = .entries(next: next, written: written)
                    return nil
                }
                let (segment, local) = history.locate(next)
                if written > 0 {
                    pieces.append(Piece(bytes: Self.comma, after: .entries(next: next, written: written)))
                }
                stage = .entries(next: next + 1, written: written + 1)
                pieces.append(Piece(bytes: segment.entry(local), after: stage))
                looked += 1
            case .trailer:
                stage = .done
                pieces.append(Piece(bytes: UnsafeRawBufferPointer(rebasing: trailer[..<trailerCount]), after: stage))
            }
        }
        return pieces
    }

    /// Moves past what writev took: whole pieces, and a remainder of the one it took part of.
    private func advance(past pieces: [Piece], written: Int) {
        var left = written
        remainder = nil
        for piece in pieces {
            if left >= piece.bytes.count {
                left -= piece.bytes.count
                stage = piece.after
                continue
            }
            stage = piece.after
            remainder = (Piece(bytes: piece.bytes, after: piece.after), left)
            return
        }
    }
}
