// SPDX-License-Identifier: Apache-2.0
import Glibc
import Locking
import SDEvent
import Testing

/// Long work done a slice per turn takes turns with the background descriptors that are ready meanwhile (a
/// client's call between two slices of a fan-out): neither waits for all of the other.
@Suite struct SlicedSourceTests {
    /// `slicers` slices that each re-arm themselves 500 times (the daemon has two: the flows' look-ups and the
    /// fan-out), and a descriptor made ready while they run: it is served within a few slices, not after all of
    /// them. Before, a background descriptor waited for every slice. `postsJobs`: each slice also posts a job to
    /// the loop (`execute`, as the daemon's updates do), whose wake-up is a normal source: it must not take the
    /// turn the slice left to the descriptor (it did, and a GetPath waited for a whole flow fan-out, 22-26 ms).
    @Test(arguments: [SDEventUrgency.background, .normal], [(1, false), (2, false), (1, true), (2, true)])
    func aReadyDescriptorIsServedBetweenSlices(urgency: SDEventUrgency, slicers: (Int, postsJobs: Bool)) throws {
        let (slicers, postsJobs) = slicers
        let loop = try SDEventLoop.startedOnNewThread(name: "test-slices")
        defer { loop.exit() }
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
        defer { close(ends[0]); close(ends[1]) }
        let reader = ends[0]
        let writer = ends[1]
        let log = Locked<[String]>([])
        let all = loop.sync { () -> UncheckedTransfer<[SDEventSource]> in
            var slices: [SDEventSource] = []
            for _ in 0..<slicers {
                let box = SliceBox()
                let slice = try? loop.sliced {
                    box.turns += 1
                    let count = log.withLock { log in
                        log.append("slice")
                        return log.count
                    }
                    if count == 10 { _ = write(writer, "x", 1) }
                    if postsJobs { loop.execute {} }
                    if box.turns < 500 { box.source?.armOnce() }
                }
                box.source = slice
                if let slice { slices.append(slice) }
            }
            let watch = try? loop.watch(reader, for: .readable, urgency: urgency) { _ in
                var byte: UInt8 = 0
                while read(reader, &byte, 1) == 1 {}
                log.withLock { $0.append("descriptor") }
            }
            for slice in slices { slice.armOnce() }
            return UncheckedTransfer(slices + [watch].compactMap { $0 })
        }
        // sd-event is the loop's alone: the sources go there, before the descriptors close.
        defer { loop.sync { for source in all.value { source.cancel() } } }
        try Self.waitFor { log.withLock { $0.filter { $0 == "slice" }.count } == 500 * slicers }

        let entries = log.withLock { $0 }
        let served = try #require(entries.firstIndex(of: "descriptor"), "the descriptor was never served")
        #expect(served <= 10 + slicers + 1, "the descriptor waited for \(served - 10) slices")
    }

    /// A descriptor that stays ready (a client that keeps sending) does not hold the slices up: they alternate.
    @Test func slicesGoOnWhileADescriptorStaysReady() throws {
        let loop = try SDEventLoop.startedOnNewThread(name: "test-flood")
        defer { loop.exit() }
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        #expect(write(ends[1], "x", 1) == 1)
        let reader = ends[0]
        let log = Locked<[String]>([])
        let all = loop.sync { () -> UncheckedTransfer<[SDEventSource]> in
            let box = SliceBox()
            // Never drained: readable on every turn.
            let watch = try? loop.watch(reader, for: .readable, urgency: .background) { _ in
                log.withLock { $0.append("descriptor") }
            }
            box.source = try? loop.sliced {
                box.turns += 1
                log.withLock { $0.append("slice") }
                if box.turns < 100 { box.source?.armOnce() }
            }
            box.source?.armOnce()
            return UncheckedTransfer([box.source, watch].compactMap { $0 })
        }
        defer { loop.sync { for source in all.value { source.cancel() } } }
        try Self.waitFor { log.withLock { $0.filter { $0 == "slice" }.count } == 100 }
        let entries = log.withLock { $0 }
        let lastSlice = try #require(entries.lastIndex(of: "slice"))
        // About one descriptor turn per slice, not an unbounded number.
        #expect(lastSlice <= 2 * 100 + 2, "\(lastSlice) turns for 100 slices")
    }

    private final class SliceBox: @unchecked Sendable {
        var turns = 0
        var source: SDEventSource?
    }

    private static func waitFor(_ condition: () -> Bool) throws {
        for _ in 0..<500 {
            if condition() { return }
            usleep(10_000)
        }
        throw WaitError.timedOut
    }

    private enum WaitError: Error { case timedOut }
}
