// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import pathmond_bench

#if canImport(Glibc)
    import Glibc
#endif

/// `pathmond-bench flips`' thread-by-thread figures: CPU and sleeps summed per thread name between two snapshots,
/// threads that came or went left out, and counts per flip written with two decimals.
@Suite struct ThreadSplitTests {
    static func snapshot(_ tasks: [Int: ProcessSnapshot.Task]) -> ProcessSnapshot {
        var snapshot = ProcessSnapshot(pid: getpid())!
        snapshot.tasks = tasks
        return snapshot
    }

    @Test func sumsEachNameMainThreadFirstAndLeavesOutThreadsThatCameOrWent() {
        let before = Self.snapshot([
            1: .init(name: "pathmond", runtime: 1_000, voluntarySwitches: 10, involuntarySwitches: 0),
            2: .init(name: "pathmond-state", runtime: 500, voluntarySwitches: 4, involuntarySwitches: 1),
            3: .init(name: "worker", runtime: 100, voluntarySwitches: 1, involuntarySwitches: 0),
            4: .init(name: "worker", runtime: 100, voluntarySwitches: 1, involuntarySwitches: 0),
            5: .init(name: "gone", runtime: 100, voluntarySwitches: 1, involuntarySwitches: 0),
            7: .init(name: "pathmond", runtime: 0, voluntarySwitches: 0, involuntarySwitches: 0),
        ])
        let after = Self.snapshot([
            1: .init(name: "pathmond", runtime: 41_000, voluntarySwitches: 50, involuntarySwitches: 3),
            2: .init(name: "pathmond-state", runtime: 12_500, voluntarySwitches: 68, involuntarySwitches: 1),
            3: .init(name: "worker", runtime: 300, voluntarySwitches: 2, involuntarySwitches: 0),
            4: .init(name: "worker", runtime: 150, voluntarySwitches: 4, involuntarySwitches: 0),
            6: .init(name: "new", runtime: 9_999, voluntarySwitches: 9, involuntarySwitches: 0),
            // Another thread of the main thread's name (the program's): its own row.
            7: .init(name: "pathmond", runtime: 50_000, voluntarySwitches: 2, involuntarySwitches: 0),
        ])
        let threads = ProcessDelta.byThread(from: before, to: after, main: 1)
        #expect(threads.map(\.name) == ["pathmond", "pathmond", "pathmond-state", "worker"])
        #expect(threads.map(\.isMain) == [true, false, false, false])
        #expect(threads.map(\.cpuNanoseconds) == [40_000, 50_000, 12_000, 250])
        #expect(threads.map(\.sleeps) == [40, 2, 64, 4])
    }

    @Test func countsPerFlipHaveTwoDecimals() {
        #expect(Flips.perFlip(64, 40) == "1.60")
        #expect(Flips.perFlip(41, 40) == "1.03")
        #expect(Flips.perFlip(0, 40) == "0.00")
        #expect(Flips.perFlip(145, 40) == "3.63")
        #expect(Flips.perFlip(400, 40) == "10.00")
    }
}
