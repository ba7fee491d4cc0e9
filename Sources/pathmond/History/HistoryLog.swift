import PathModel
import Synchronization

/// Receives each new history entry as it is recorded: a GetHistory call with "more".
protocol HistoryFollower: AnyObject, Sendable {
    /// Called outside every lock, from the thread that changed the path.
    func deliver(_ entry: PathHistoryEntry)
}

/// The daemon's path history: the bounded `PathHistory`, the clients following it, and whether the file in the
/// state directory is behind. The hub records into it under its own lock (so entries are in the order of the
/// changes) and hands the new entry to followers after releasing it.
final class HistoryLog: Sendable {
    private struct State {
        var history: PathHistory
        var followers: [ObjectIdentifier: any HistoryFollower] = [:]
        /// Entries were recorded since the file was last written.
        var isDirty = false
    }

    private let state: Mutex<State>
    private let clock: HistoryClock

    init(history: PathHistory = PathHistory(), clock: HistoryClock = HistoryClock()) {
        state = Mutex(State(history: history))
        self.clock = clock
    }

    /// Records a change of the system path and returns what the caller must deliver once it holds no lock.
    func record(before: Path, after: Path, cause: PathChangeCause) -> HistoryDelivery {
        let now = clock.now()
        return state.withLock { state in
            let entry = state.history.append(
                wallMicroseconds: now.wall, monotonicMicroseconds: now.monotonic, bootID: clock.bootID,
                before: PathSummary(before), after: PathSummary(after), cause: cause)
            state.isDirty = true
            return HistoryDelivery(entry: entry, followers: Array(state.followers.values))
        }
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

    /// Changes the bound (a reloaded configuration); shrinking drops the oldest entries.
    func setCapacity(_ capacity: Int) {
        state.withLock { state in
            guard state.history.capacity != capacity else { return }
            state.history.setCapacity(capacity)
            state.isDirty = true
        }
    }

    /// Every entry if the file is behind, and marks it caught up; nil when nothing changed since the last call.
    /// The caller writes them (`HistoryFile.write`) off the event path.
    func takeEntriesToWrite() -> [PathHistoryEntry]? {
        state.withLock { state in
            guard state.isDirty else { return nil }
            state.isDirty = false
            return state.history.entries
        }
    }

    /// Marks the file behind again (a write failed: try again at the next chance).
    func markDirty() {
        state.withLock { $0.isDirty = true }
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
