// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol

/// The stored history encoded once, as GetHistory sends it: each entry's JSON, and beside it what a query filters
/// on (wall time, the interfaces it concerns). Immutable and shared by reference: every GetHistory reply streams
/// from the same bytes by offset (`HistoryReplyCursor`), so a thousand callers cost one encoding, not a thousand
/// copies. A new version is made from the previous one (`advanced`): whole segments are kept by reference, only the
/// new entries are encoded and only the last, partly filled segment is copied; a full history is encoded once, when
/// loaded.
///
/// @unchecked Sendable: immutable after init; its segments are too.
final class EncodedHistory: @unchecked Sendable {
    /// The history version this encodes (`HistoryLog`'s count of changes to it).
    let version: UInt64
    /// Entries in runs of `EncodedHistorySegment.capacity`; every one but the last is full.
    let segments: [EncodedHistorySegment]
    /// Entries at the start of the first segment that the history no longer keeps.
    let skip: Int
    /// The entries held.
    let count: Int

    static let empty = EncodedHistory(version: 0, segments: [], skip: 0)

    private init(version: UInt64, segments: [EncodedHistorySegment], skip: Int) {
        self.version = version
        self.segments = segments
        self.skip = skip
        self.count = segments.reduce(0) { $0 + $1.count } - skip
    }

    /// The history from `oldestSequence` on, given the entries recorded since this encoding (`newer`, oldest first,
    /// each with a sequence above `newestSequence`; all of them when nothing of this one is kept).
    func advanced(to version: UInt64, oldestSequence: UInt64?, newer: [PathHistoryEntry]) -> EncodedHistory {
        var kept = segments
        var skip = self.skip
        if let oldestSequence {
            while let first = kept.first, first.sequences.last! < oldestSequence {  // segments are never empty
                kept.removeFirst()
                skip = 0
            }
            if let first = kept.first {
                skip = max(skip, first.sequences.partitionPoint { $0 < oldestSequence })
            }
        } else {
            kept = []
            skip = 0
        }
        var pending = newer[...]
        if let last = kept.last, last.count < EncodedHistorySegment.capacity, !pending.isEmpty {
            let taken = pending.prefix(EncodedHistorySegment.capacity - last.count)
            pending = pending.dropFirst(taken.count)
            kept[kept.count - 1] = EncodedHistorySegment(extending: last, with: taken)
        }
        while !pending.isEmpty {
            let taken = pending.prefix(EncodedHistorySegment.capacity)
            pending = pending.dropFirst(taken.count)
            kept.append(EncodedHistorySegment(extending: nil, with: taken))
        }
        if kept.count == 1 && kept[0].count == skip {
            kept = []
            skip = 0
        }
        return EncodedHistory(version: version, segments: kept, skip: skip)
    }

    /// The newest sequence held.
    var newestSequence: UInt64? { segments.last?.sequences.last }

    /// Where entry `index` (0: the oldest held) is: its segment and its place there.
    @inline(__always)
    func locate(_ index: Int) -> (segment: EncodedHistorySegment, local: Int) {
        let position = index + skip
        return (segments[position / EncodedHistorySegment.capacity], position % EncodedHistorySegment.capacity)
    }

    /// The bytes encoded, for tests and the memory figures.
    var byteCount: Int { segments.reduce(0) { $0 + $1.ends.last! } }  // segments are never empty
}

/// Up to `capacity` consecutive entries, encoded.
///
/// @unchecked Sendable: immutable after init; `bytes` is owned, written once in init and freed in deinit.
final class EncodedHistorySegment: @unchecked Sendable {
    static let capacity = 1024

    /// Each entry's JSON object, back to back, no separators.
    let bytes: UnsafeMutableRawBufferPointer
    /// Where each entry's bytes end.
    let ends: [Int]
    let sequences: [UInt64]
    let wallMicroseconds: [Int64]
    /// Each entry's interfaces (before, after and the cause's) as "\0eth0\0wlan0\0", back to back; `nameEnds`
    /// bounds them. What the interface filter searches, without the decoded entries.
    let names: [UInt8]
    let nameEnds: [Int]

    var count: Int { ends.count }

    /// The entries of `previous` (copied: at most one segment) followed by `entries`, encoded.
    init(extending previous: EncodedHistorySegment?, with entries: ArraySlice<PathHistoryEntry>) {
        var ends = previous?.ends ?? []
        var sequences = previous?.sequences ?? []
        var walls = previous?.wallMicroseconds ?? []
        var names = previous?.names ?? []
        var nameEnds = previous?.nameEnds ?? []
        let base = previous?.ends.last ?? 0
        let encoded = StreamedReplyWriter.historyEntries(entries) { ends.append(base + $0) }
        for entry in entries {
            sequences.append(entry.sequence)
            walls.append(entry.wallMicroseconds)
            names.append(0)
            for name in entry.before.interfaces + entry.after.interfaces + entry.cause.interfaces {
                names += name.utf8
                names.append(0)
            }
            nameEnds.append(names.count)
        }
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, base + encoded.count), alignment: 1)
        if let previous, base > 0 {
            storage.baseAddress!.copyMemory(from: previous.bytes.baseAddress!, byteCount: base)  // allocated above
        }
        encoded.withUnsafeBytes { source in
            if source.count > 0 {
                (storage.baseAddress! + base).copyMemory(from: source.baseAddress!, byteCount: source.count)
            }
        }
        self.bytes = storage
        self.ends = ends
        self.sequences = sequences
        self.wallMicroseconds = walls
        self.names = names
        self.nameEnds = nameEnds
    }

    deinit { bytes.deallocate() }

    /// Entry `local`'s bytes.
    @inline(__always)
    func entry(_ local: Int) -> UnsafeRawBufferPointer {
        let start = local == 0 ? 0 : ends[local - 1]
        return UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start..<ends[local]])
    }

    /// Whether entry `local` concerns the interface whose name, between NULs, is `needle`.
    func concerns(_ local: Int, needle: [UInt8]) -> Bool {
        let start = local == 0 ? 0 : nameEnds[local - 1]
        let haystack = names[start..<nameEnds[local]]
        guard haystack.count >= needle.count else { return false }
        var index = haystack.startIndex
        while index + needle.count <= haystack.endIndex {
            if haystack[index..<index + needle.count].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }
}

extension Array {
    /// The first index whose element does not satisfy `belongsBefore` (the elements are partitioned by it).
    fileprivate func partitionPoint(_ belongsBefore: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if belongsBefore(self[middle]) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
