import Locking
// SPDX-License-Identifier: Apache-2.0
import PathModel

/// Receives each new history entry as it is recorded: a GetHistory call with "more".
protocol HistoryFollower: AnyObject, Sendable {
    /// Called outside every lock, from the thread that changed the path.
    func deliver(_ entry: PathHistoryEntry)
}

/// The daemon's path history: the bounded `PathHistory`, the clients following it, and what the file in the
/// state directory lacks. The hub records into it under its own lock (so entries are in the order of the
/// changes) and hands the new entry to followers after releasing it; the state writer's thread takes what the
/// file lacks (`takeEntriesToWrite`), so the event path only appends to an array.
final class HistoryLog: Sendable {
    private struct State {
        var history: PathHistory
        var followers: [ObjectIdentifier: any HistoryFollower] = [:]
        /// Entries recorded since the writer last took them, oldest first. At most `capacity`: past that the file
        /// is rewritten whole instead, so a writer that falls behind costs no more memory than the history.
        var unwritten: [PathHistoryEntry] = []
        /// An array the writer gave back emptied (`recycle`), its room kept: the next change appends into it
        /// rather than allocate `unwritten` anew after every write.
        var spare: [PathHistoryEntry] = []
        /// The file must be rewritten whole (a write failed, it was set aside or cut short, or it fell behind).
        var mustRewrite = false
        /// Counts changes to the entries held (a record, a new bound): what an encoding is of.
        var version: UInt64 = 1
        /// The newest encoding made; of `version` or older.
        var encoded = EncodedHistory.empty
    }

    private let state: Locked<State>
    private let clock: HistoryClock

    init(history: PathHistory = PathHistory(), clock: HistoryClock = HistoryClock()) {
        // A loaded history is encoded here, at start, once: a reply never waits on encoding more than the entries
        // recorded since the previous one.
        let encoded = EncodedHistory.empty.advanced(
            to: 1, oldestSequence: history.oldest?.sequence, newer: history.entries)
        state = Locked(State(history: history, encoded: encoded))
        self.clock = clock
    }

    /// The stored history, encoded, as of now; with `follower`, it also receives every entry recorded after it
    /// (registered under the lock that publishes the encoding, so no entry falls between). An encoding out of date
    /// is brought up to date outside the lock, from the previous one: the cost is the entries recorded since, paid
    /// by the caller, and the thread recording a change never waits on it.
    func encoded(follower: (any HistoryFollower)? = nil) -> EncodedHistory {
        while true {
            let (current, oldest, newer, version) = state.withLock {
                state -> (EncodedHistory, UInt64?, [PathHistoryEntry], UInt64) in
                if state.encoded.version == state.version {
                    if let follower { state.followers[ObjectIdentifier(follower)] = follower }
                    return (state.encoded, nil, [], state.version)
                }
                let base = state.encoded
                let newer = base.newestSequence.map(state.history.entries(after:)) ?? state.history.entries
                return (base, state.history.oldest?.sequence, newer, state.version)
            }
            if current.version == version { return current }
            let made = current.advanced(to: version, oldestSequence: oldest, newer: newer)
            let published = state.withLock { state -> Bool in
                guard state.version == version else {
                    // Changed again meanwhile: keep what was made as the base, if it is newer.
                    if state.encoded.version < version { state.encoded = made }
                    return false
                }
                state.encoded = made
                if let follower { state.followers[ObjectIdentifier(follower)] = follower }
                return true
            }
            if published { return made }
        }
    }

    /// Records a change of the system path and returns what the caller must deliver once it holds no lock.
    func record(before: Path, after: Path, cause: consuming PathChangeCause) -> HistoryDelivery {
        let now = clock.now()
        let cause = HistoryEntryBounds.bounded(cause)
        return state.withLock { state in
            let entry = state.history.append(
                wallMicroseconds: now.wall, monotonicMicroseconds: now.monotonic, bootID: clock.bootID,
                before: Self.summary(of: before, in: state.history), after: Self.summary(of: after, in: state.history),
                cause: cause)
            state.version += 1
            if !state.mustRewrite {
                state.unwritten.append(entry)
                if state.unwritten.count > state.history.capacity {
                    state.unwritten = []
                    state.mustRewrite = true
                }
            }
            // Mostly no one follows: no array made from the empty dictionary's values then.
            let followers = state.followers.isEmpty ? [] : Array(state.followers.values)
            return HistoryDelivery(entry: entry, followers: followers)
        }
    }

    /// The bounded summary of a path: the newest entry's when it holds one of the same path (a bounded summary
    /// never equals a path with more interfaces), so that a flip's entries share their name lists, not allocate
    /// two per change.
    private static func summary(of path: Path, in history: PathHistory) -> PathSummary {
        history.newestSummary(of: path) ?? HistoryEntryBounds.bounded(PathSummary(path))
    }

    /// The stored entries a query selects; with `follower`, it also receives every entry recorded from now on
    /// (registered under the same lock, so none falls between the stored ones and the first delivered).
    func entries(matching query: PathHistoryQuery, follower: (any HistoryFollower)? = nil) -> [PathHistoryEntry] {
        state.withLock { state in
            if let follower { state.followers[ObjectIdentifier(follower)] = follower }
            return state.history.entries(matching: query)
        }
    }

    /// Stops delivering to a follower; harmless if it never followed.
    func unfollow(_ follower: any HistoryFollower) {
        _ = state.withLock { $0.followers.removeValue(forKey: ObjectIdentifier(follower)) }
    }

    /// The newest entry (`pathctl status`: when the path last changed, and why).
    var newest: PathHistoryEntry? { state.withLock { $0.history.newest } }

    /// The number of followers.
    var followerCount: Int { state.withLock { $0.followers.count } }

    /// The most entries kept.
    var capacity: Int { state.withLock { $0.history.capacity } }

    /// Changes the bound (a reloaded configuration); shrinking drops the oldest entries. The file keeps its
    /// older entries until its next compaction, and loading keeps only the newest `capacity` of them.
    func setCapacity(_ capacity: Int) {
        state.withLock { state in
            guard state.history.capacity != capacity else { return }
            state.history.setCapacity(capacity)
            state.version += 1
            if state.unwritten.count > capacity {
                state.unwritten = []
                state.mustRewrite = true
            }
        }
    }

    /// Whether the file lacks something.
    var isBehind: Bool { state.withLock { !$0.unwritten.isEmpty || $0.mustRewrite } }

    /// What the file lacks, and marks it caught up; nil when nothing was recorded since the last call. Given how
    /// many entries the file holds (nil: unknown, or it must be written whole first), it is the new entries to
    /// append, or every entry to rewrite it with once it would hold more than `compactionFactor` times the
    /// bound. Decided under the lock, so that no entry is both in a rewrite and still to append. The caller
    /// writes it off the event path (`StateWriters`).
    func takeEntriesToWrite(fileHolds entriesInFile: Int?) -> HistoryWrite? {
        state.withLock { state in
            guard state.mustRewrite || !state.unwritten.isEmpty else { return nil }
            let limit = HistoryFile.compactionFactor * state.history.capacity
            let write: HistoryWrite
            if state.mustRewrite || entriesInFile.map({ $0 + state.unwritten.count > limit }) ?? true {
                write = .rewrite(state.history.entries)
            } else {
                write = .append(state.unwritten)
            }
            state.unwritten = state.spare
            state.spare = []
            state.mustRewrite = false
            return write
        }
    }

    /// Takes back a write's entries once they are written: emptied here, outside the lock, and kept as the room for
    /// the next entries (if small: a rewrite's or a burst's large array is freed).
    func recycle(_ write: consuming HistoryWrite) {
        guard case .append(var entries) = consume write, entries.capacity <= Self.recycledCapacity else { return }
        entries.removeAll(keepingCapacity: true)
        state.withLock { state in
            if state.spare.capacity == 0 { state.spare = entries }
        }
    }

    /// The largest array `recycle` keeps: a second's changes, even on a flapping link.
    static let recycledCapacity = 64

    /// Makes the next write a whole one (a write failed, or the loaded file must be repaired).
    func markDirty() {
        state.withLock { state in
            state.unwritten = []
            state.mustRewrite = true
        }
    }
}

/// What the history file lacks: entries to append, or the whole history to replace it with.
enum HistoryWrite: Sendable, Equatable {
    case append([PathHistoryEntry])
    case rewrite([PathHistoryEntry])

    /// The entries either way.
    var entries: [PathHistoryEntry] {
        switch self {
        case .append(let entries), .rewrite(let entries): entries
        }
    }
}

/// A recorded entry and the followers it is for; `deliver()` once no lock is held.
struct HistoryDelivery {
    let entry: PathHistoryEntry
    let followers: [any HistoryFollower]

    func deliver() {
        for follower in followers { follower.deliver(entry) }
    }
}
