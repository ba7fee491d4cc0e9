// SPDX-License-Identifier: Apache-2.0
/// The last `capacity` path changes, oldest first, in bounded memory: appending past the bound drops the oldest.
/// Pure: time and causes arrive as values.
public struct PathHistory: Sendable, Hashable {
    /// The most entries kept.
    public private(set) var capacity: Int
    /// A ring: `storage[start]` is the oldest once the ring is full.
    private var storage: [PathHistoryEntry] = []
    private var start = 0
    /// The sequence number the next entry gets.
    public private(set) var nextSequence: UInt64

    /// The default bound: a thousand changes, about a quarter of a megabyte.
    public static let defaultCapacity = 1000
    /// The largest bound the configuration may set.
    public static let maximumCapacity = 100_000

    /// An empty history (or one that continues from `entries`, oldest first; only the newest `capacity` stay).
    public init(capacity: Int = defaultCapacity, entries: [PathHistoryEntry] = []) {
        self.capacity = max(1, capacity)
        nextSequence = (entries.last?.sequence).map { $0 &+ 1 } ?? 1
        storage = Array(entries.suffix(self.capacity))
    }

    /// The entries, oldest first.
    public var entries: [PathHistoryEntry] {
        Array(storage[start...] + storage[..<start])
    }

    /// The entries with a sequence above `sequence`, oldest first: what was recorded since an entry a reader has.
    /// Costs the entries returned, not the history.
    public func entries(after sequence: UInt64) -> [PathHistoryEntry] {
        var newer: [PathHistoryEntry] = []
        var offset = storage.count - 1
        while offset >= 0 {
            let entry = storage[(start + offset) % storage.count]
            guard entry.sequence > sequence else { break }
            newer.append(entry)
            offset -= 1
        }
        return newer.reversed()
    }

    /// The oldest entry.
    public var oldest: PathHistoryEntry? { storage.isEmpty ? nil : storage[start] }

    /// The number of entries held.
    public var count: Int { storage.count }

    /// The newest entry.
    public var newest: PathHistoryEntry? {
        storage.isEmpty ? nil : storage[(start + storage.count - 1) % storage.count]
    }

    /// The newest entry's summary of the path (after, else before), if it has one: the path before a change is the
    /// one after the previous change, and a flip returns to the path before that. A recorder keeps that summary,
    /// its name list shared, rather than make the same one again. Read in place, not from a copy of the entry.
    public func newestSummary(of path: Path) -> PathSummary? {
        storage.withUnsafeBufferPointer { storage in
            guard !storage.isEmpty else { return nil }
            let newest = (start + storage.count - 1) % storage.count
            if storage[newest].after.summarizes(path) { return storage[newest].after }
            if storage[newest].before.summarizes(path) { return storage[newest].before }
            return nil
        }
    }

    /// Records a change; the entry gets the next sequence number, which is returned with it. The parts are taken,
    /// not copied (a copy is a retain of each string and list, on every path change).
    @discardableResult
    public mutating func append(
        wallMicroseconds: Int64, monotonicMicroseconds: UInt64, bootID: String = "", before: consuming PathSummary,
        after: consuming PathSummary, cause: consuming PathChangeCause
    ) -> PathHistoryEntry {
        let entry = PathHistoryEntry(
            sequence: nextSequence, wallMicroseconds: wallMicroseconds, monotonicMicroseconds: monotonicMicroseconds,
            bootID: bootID, before: before, after: after, cause: cause)
        nextSequence &+= 1
        if storage.count < capacity {
            storage.append(entry)
        } else {
            storage[start] = entry
            start = (start + 1) % capacity
        }
        return entry
    }

    /// Changes the bound; shrinking drops the oldest entries.
    public mutating func setCapacity(_ newCapacity: Int) {
        let kept = Array(entries.suffix(max(1, newCapacity)))
        capacity = max(1, newCapacity)
        storage = kept
        start = 0
    }

    /// The entries a query selects, oldest first: at or after `since` (wall time), concerning `interface`, and of
    /// those the newest `limit`.
    public func entries(matching query: PathHistoryQuery) -> [PathHistoryEntry] {
        let selected = entries.filter(query.matches)
        guard let limit = query.limit else { return selected }
        return Array(selected.suffix(max(0, limit)))
    }
}

/// Which entries a reader wants.
public struct PathHistoryQuery: Sendable, Hashable {
    /// Only entries at or after this wall time (microseconds since the epoch).
    public var sinceWallMicroseconds: Int64?
    /// Only entries that concern this interface.
    public var interface: String?
    /// At most this many of the stored entries, the newest.
    public var limit: Int?

    public init(sinceWallMicroseconds: Int64? = nil, interface: String? = nil, limit: Int? = nil) {
        self.sinceWallMicroseconds = sinceWallMicroseconds
        self.interface = interface
        self.limit = limit
    }

    /// Whether an entry passes the time and interface filters (the limit applies to a list).
    public func matches(_ entry: PathHistoryEntry) -> Bool {
        if let since = sinceWallMicroseconds, entry.wallMicroseconds < since { return false }
        if let interface, !entry.concerns(interface: interface) { return false }
        return true
    }
}
