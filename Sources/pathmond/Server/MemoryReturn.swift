import Locking
// SPDX-License-Identifier: Apache-2.0
import SDEvent
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Gives the allocator's free memory back to the system after a flood: glibc keeps what replies and connections
/// let go for reuse, so 1,000 clients that left 500 MB unread once left pathmond holding hundreds of megabytes.
/// Memory let go is noted on the main loop; a moment after the first note (`delay`), on another loop (the policy
/// loop's), one malloc_trim gives it back, if enough was let go meanwhile: one trim for a thousand closes, at most
/// a few a second, never on the main loop (a trim of a large heap takes milliseconds).
final class MemoryReturn: Sendable {
    static let delay = Duration.milliseconds(200)
    /// Less than this let go is not worth a trim.
    static let threshold = 256 * 1024

    private let loop: SDEventLoop
    private let freed = Atomic<Int>(0)
    private let isScheduled = Atomic<Bool>(false)
    private let pending = Locked<UncheckedSource?>(nil)

    init(loop: SDEventLoop) {
        self.loop = loop
    }

    /// Notes `bytes` let go (replies taken or dropped, a closed connection's buffers).
    func released(_ bytes: Int) {
        guard bytes > 0 else { return }
        _ = freed.add(bytes, ordering: .relaxed)
        guard !isScheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let loop = loop
        loop.execute { [self] in
            let source = try? loop.schedule(after: Self.delay) { [self] in
                isScheduled.store(false, ordering: .releasing)
                if freed.exchange(0, ordering: .relaxed) >= Self.threshold { Self.giveMemoryBack() }
                pending.withLock { $0 = nil }
            }
            if source == nil { isScheduled.store(false, ordering: .releasing) }
            // Kept until it fires.
            pending.withLock { $0 = source.map(UncheckedSource.init) }
        }
    }

    /// @unchecked Sendable: made, fired and dropped on the trimming loop.
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
