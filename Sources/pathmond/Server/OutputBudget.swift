import SDEvent
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What one user's clients may leave unread in pathmond's memory, all connections together, as the per-user client
/// and watch limits bound how many: a user past `maximumPerUser` bytes waiting in replies their clients do not read
/// has those clients no longer read (back-pressure: their calls wait in the socket) until they take their replies.
/// Root is not held to it, so that one user filling their share never keeps the administrator waiting.
///
/// GetHistory replies are not buffered at all (`HistoryReplyCursor` writes from the shared encoding as the socket
/// takes it), so what counts here are the other replies a client leaves unread.
final class OutputBudget: Sendable {
    /// 16 MiB: every client of one user holding its connection's high watermark would be 256 MiB.
    static let defaultMaximumPerUser = 16 << 20

    let maximumPerUser: Int
    private let buffered = Mutex<[UInt32: Int]>([:])
    /// Bytes let go since memory was last given back to the system.
    private let freedSinceTrim = Atomic<Int>(0)
    /// Give memory back once this much was let go: a flood of unread replies must not leave the daemon large.
    static let trimThreshold = 4 << 20

    init(maximumPerUser: Int = defaultMaximumPerUser) {
        self.maximumPerUser = maximumPerUser
    }

    /// Adds `change` bytes (negative: taken by the client, or dropped) to what `userID` has waiting; true when the
    /// user is over their share now.
    func add(_ change: Int, for userID: UInt32) -> Bool {
        guard change != 0 || userID != 0 else { return false }
        let total = buffered.withLock { buffered -> Int in
            let total = buffered[userID, default: 0] + change
            buffered[userID] = total > 0 ? total : nil
            return total
        }
        if change < 0 { released(-change) }
        return userID != 0 && total > maximumPerUser
    }

    /// Whether `userID` is over their share.
    func isOver(_ userID: UInt32) -> Bool {
        userID != 0 && buffered.withLock { $0[userID, default: 0] } > maximumPerUser
    }

    /// What `userID` has waiting now.
    func bufferedBytes(of userID: UInt32) -> Int { buffered.withLock { $0[userID, default: 0] } }

    /// Notes memory let go (replies sent or dropped, a connection's buffers); past `trimThreshold` since the last
    /// time, glibc is asked to give its free memory back (malloc_trim), so that a flood does not leave pathmond
    /// holding hundreds of megabytes it no longer uses.
    func released(_ bytes: Int) {
        let total = freedSinceTrim.add(bytes, ordering: .relaxed).newValue
        guard total >= Self.trimThreshold else { return }
        guard freedSinceTrim.compareExchange(expected: total, desired: 0, ordering: .relaxed).exchanged else { return }
        Self.giveMemoryBack()
    }

    /// Notes memory a closing connection let go (its buffers, its queued calls); once a flood ends, the free
    /// memory goes back to the system a moment after the last such close (one trim for a thousand closes).
    func releasedOnClose(_ bytes: Int, loop: SDEventLoop) {
        _ = freedSinceTrim.add(bytes, ordering: .relaxed)
        guard !trimScheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        loop.execute { [self] in
            let source = try? loop.schedule(after: .milliseconds(200)) { [self] in
                trimScheduled.store(false, ordering: .releasing)
                freedSinceTrim.store(0, ordering: .relaxed)
                Self.giveMemoryBack()
            }
            // Kept until it fires: a later close schedules the next one.
            pendingTrim.withLock { $0 = source.map(UncheckedSource.init) }
        }
    }

    private let trimScheduled = Atomic<Bool>(false)
    private let pendingTrim = Mutex<UncheckedSource?>(nil)

    /// @unchecked Sendable: made, fired and dropped on the loop that scheduled it.
    private struct UncheckedSource: @unchecked Sendable {
        let source: SDEventSource
    }

    /// malloc_trim(0): free pages of every arena back to the kernel. glibc's; Glibc's module map leaves malloc.h
    /// out, so it is looked up once by name (absent on another C library: then nothing is done).
    static func giveMemoryBack() {
        _ = trim?(0)
    }

    private typealias MallocTrim = @convention(c) (Int) -> Int32
    private static let trim: MallocTrim? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: MallocTrim.self)
    }()
}
