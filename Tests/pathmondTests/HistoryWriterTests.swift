// SPDX-License-Identifier: Apache-2.0
import Foundation
import Logging
import PathModel
import Synchronization
import Testing

@testable import pathmond

/// The history file as the daemon writes it: new entries appended, survived by a restart; a file cut short
/// repaired; compacted to the newest entries when it grows past twice the bound; a flood of changes costing a few
/// writes; everything owed written on stop; and the event path never waiting for the writer's thread.
@Suite struct HistoryWriterTests {
    /// The flood would log ten thousand "path changed" lines.
    static let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    static func writers(_ directory: String, entries: Int = 1000, metrics: MetricsTextfile? = nil) -> StateWriters {
        let writers = StateWriters.load(
            configuration: Configuration(historyEntries: entries), stateDirectory: directory,
            counters: DaemonCounters(), logger: Self.quiet)
        writers.setMetrics(metrics)
        return writers
    }

    static func record(_ history: HistoryLog, _ count: Int) {
        for index in 0..<count {
            _ = history.record(
                before: .unsatisfied(.noCarrier), after: Path(status: .satisfied),
                cause: index.isMultiple(of: 2) ? .resolverChange : .configurationReload)
        }
    }

    /// The sequence numbers in the file, which must read whole (no problem, nothing cut short).
    static func sequences(_ directory: String) throws -> [UInt64] {
        let bytes = Array(try Data(contentsOf: URL(filePath: HistoryFile(stateDirectory: directory).path)))
        let decoded = HistoryFile.decode(bytes)
        #expect(decoded.problems.isEmpty && decoded.tornBytes == 0 && decoded.endsWithWholeLine)
        return decoded.entries.map(\.sequence)
    }

    static func flush(_ writers: StateWriters) {
        _ = writers.flush(now: .now, final: true)
    }

    @Test func appendsSurviveARestart() throws {
        let directory = try HistoryFileTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = Self.writers(directory)
        Self.record(first.history, 2)
        Self.flush(first)
        // No file yet: written whole, header first; after that, appended to.
        #expect(first.historyWrites.rewrites == 1 && first.historyWrites.appends == 0)
        Self.record(first.history, 1)
        Self.flush(first)
        #expect(first.historyWrites.rewrites == 1 && first.historyWrites.appends == 1)

        let second = Self.writers(directory)
        #expect(second.history.entries(matching: PathHistoryQuery()).map(\.sequence) == [1, 2, 3])
        Self.record(second.history, 2)
        Self.flush(second)
        // The file read at start is appended to as it is.
        #expect(second.historyWrites.rewrites == 0 && second.historyWrites.appends == 1)
        #expect(try Self.sequences(directory) == [1, 2, 3, 4, 5])
        let third = Self.writers(directory)
        #expect(third.history.entries(matching: PathHistoryQuery()).map(\.sequence) == [1, 2, 3, 4, 5])
    }

    @Test func aFileCutShortIsRepairedBeforeTheNextAppend() throws {
        let directory = try HistoryFileTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = HistoryFile(stateDirectory: directory)
        let entries = HistoryFileTests.entries(4)
        let torn = HistoryFile.encodeLines([entries[3]]).prefix(100)
        try Data(HistoryFile.encode(Array(entries.prefix(3))) + torn).write(to: URL(filePath: file.path))
        let writers = Self.writers(directory)
        #expect(writers.history.entries(matching: PathHistoryQuery()) == Array(entries.prefix(3)))
        Self.record(writers.history, 1)
        Self.flush(writers)
        // Appending after the torn bytes would glue the new line to them: rewritten instead.
        #expect(writers.historyWrites.rewrites == 1 && writers.historyWrites.appends == 0)
        #expect(try Self.sequences(directory) == [1, 2, 3, 4])
        #expect(try HistoryFileTests.asideFiles(directory).isEmpty)
        let loaded = file.load()
        #expect(loaded.tornTail == nil && loaded.appendableEntries == 4)
    }

    /// An empty file (a crash right after creating it, or `: > history.jsonl`) has no header: written whole.
    @Test func anEmptyFileIsWrittenWholeNotAppendedTo() throws {
        let directory = try HistoryFileTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = HistoryFile(stateDirectory: directory)
        #expect(FileManager.default.createFile(atPath: file.path, contents: Data()))
        #expect(file.load().appendableEntries == nil)
        let writers = Self.writers(directory)
        Self.record(writers.history, 2)
        Self.flush(writers)
        #expect(writers.historyWrites.rewrites == 1 && writers.historyWrites.appends == 0)
        #expect(try Self.sequences(directory) == [1, 2])
    }

    @Test func compactionKeepsTheNewestInOrderAndBoundsTheFile() throws {
        let directory = try HistoryFileTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bound = 5
        let writers = Self.writers(directory, entries: bound)
        var largest = 0
        for change in 1...40 {
            Self.record(writers.history, 1)
            Self.flush(writers)
            let sequences = try Self.sequences(directory)
            // Consecutive, oldest first, ending with the newest; never more than twice the bound.
            #expect(sequences == Array(sequences[0]...UInt64(change)), "after change \(change)")
            #expect(sequences.count >= min(change, bound) && sequences.count <= 2 * bound, "after change \(change)")
            largest = max(largest, sequences.count)
        }
        #expect(largest == 2 * bound)
        // Mostly appends: one rewrite to start the file, then one per `bound + 1` changes.
        #expect(writers.historyWrites.appends > 3 * writers.historyWrites.rewrites)
        #expect(writers.historyWrites.rewrites >= 40 / (bound + 1))
        let size = try FileManager.default.attributesOfItem(atPath: HistoryFile(stateDirectory: directory).path)[.size]
        let bytes = try #require(size as? Int)
        #expect(bytes <= HistoryFile.encode(HistoryFileTests.entries(2 * bound)).count + 2 * bound * 100)
        // A restart keeps the newest `bound`.
        let restarted = Self.writers(directory, entries: bound)
        #expect(restarted.history.entries(matching: PathHistoryQuery()).map(\.sequence) == Array(36...40))
    }

    @Test func aFloodOfChangesCostsAFewWritesAndKeepsTheNewest() throws {
        let directory = try HistoryFileTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let writers = Self.writers(directory)
        let service = StateWriterService(writers: writers, logger: Self.quiet)
        let hub = PathHub(
            evaluator: PathEvaluator(), logger: Self.quiet, history: writers.history,
            afterUpdate: { service.changed() })
        let start = ContinuousClock.now
        hub.apply([.snapshot(KernelSnapshot(links: [HistoryHubTests.link], addresses: [HistoryHubTests.address]))])
        for change in 0..<10_000 {
            let route = HistoryHubTests.route
            hub.apply([change.isMultiple(of: 2) ? .routeAdded(route, replacing: false) : .routeRemoved(route)])
        }
        service.stop()
        let seconds = Int((ContinuousClock.now - start) / .seconds(1))
        let writes = writers.historyWrites.appends + writers.historyWrites.rewrites
        // At most one a second, the first at once, and the last on stop: however fast the flood came.
        #expect(writes >= 1 && writes <= seconds + 2, "\(writes) writes in \(seconds) s")
        // Compared as ranges: ten thousand numbers in a failure message help nobody.
        let sequences = try Self.sequences(directory)
        let range = sequences.first.map { $0...(sequences.last ?? 0) }
        #expect(range.map { Array($0) == sequences } == true, "not consecutive: \(String(describing: range))")
        #expect(
            range?.upperBound == 10_001 && sequences.count >= 1000 && sequences.count <= 2000,
            "\(String(describing: range))")
        let restarted = Self.writers(directory).history.entries(matching: PathHistoryQuery()).map(\.sequence)
        #expect(restarted == Array(9002...10_001), "\(restarted.first ?? 0)...\(restarted.last ?? 0)")
    }

    @Test func stopWritesEverythingOwed() async throws {
        let directory = try HistoryFileTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let satisfied = Flag()
        let metricsPath = directory + "/pathmond.prom"
        let metrics = MetricsTextfile(path: metricsPath, version: "1", startTimeSeconds: 0, counters: DaemonCounters())
        {
            MetricsState(
                path: satisfied.value ? Path(status: .satisfied) : .unsatisfied(.noCarrier), interfaces: [],
                lastChangeSeconds: nil)
        }
        let writers = Self.writers(directory, metrics: metrics)
        let service = StateWriterService(writers: writers, logger: Self.quiet)
        Self.record(writers.history, 1)
        service.changed()
        // The first change is written at once, by the writer's thread.
        let deadline = ContinuousClock.now + .seconds(30)
        while !FileManager.default.fileExists(atPath: metricsPath) || (try? Self.sequences(directory)) != [1] {
            try #require(ContinuousClock.now < deadline, "the first change was not written")
            try await Task.sleep(for: .milliseconds(10))
        }
        // More within the second: owed, deferred, and written by stop rather than lost.
        Self.record(writers.history, 4)
        satisfied.value = true
        service.changed()
        service.stop()
        #expect(try Self.sequences(directory) == [1, 2, 3, 4, 5])
        // The metrics file goes with the daemon: node_exporter must not serve its last word as if it still held.
        #expect(!FileManager.default.fileExists(atPath: metricsPath))
        // Stopped: later changes are not written (the daemon is exiting), and nothing hangs.
        Self.record(writers.history, 1)
        service.changed()
        service.stop()
        #expect(try Self.sequences(directory) == [1, 2, 3, 4, 5])
    }

    @Test func stopWritesEvenWithoutAThread() throws {
        let directory = try HistoryFileTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let writers = Self.writers(directory)
        Self.record(writers.history, 3)
        StateWriterService(writers: writers, logger: Self.quiet).stop()
        #expect(try Self.sequences(directory) == [1, 2, 3])
    }

    /// The writer's thread is stuck (a slow disk): the hub goes on applying changes and subscribers hear each of
    /// them; the file catches up once the writer does.
    @Test func aStuckWriterDoesNotHoldUpTheEventPath() throws {
        let directory = try HistoryFileTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let writers = Self.writers(directory)
        let sink = StuckSink(writers)
        defer { sink.release.signal() }
        let service = StateWriterService(writers: sink, logger: Self.quiet)
        let hub = PathHub(
            evaluator: PathEvaluator(), logger: Self.quiet, history: writers.history,
            afterUpdate: { service.changed() })
        let subscriber = CountingSubscriber()
        _ = hub.subscribe(subscriber)
        // The changes come from a thread of their own (the daemon's main loop, here), so that a hub waiting for
        // the writer fails this test instead of hanging it.
        let done = DispatchSemaphore(value: 0)
        Thread {
            hub.apply([
                .snapshot(KernelSnapshot(links: [HistoryHubTests.link], addresses: [HistoryHubTests.address]))
            ])
            for change in 0..<20 {
                let route = HistoryHubTests.route
                hub.apply([change.isMultiple(of: 2) ? .routeAdded(route, replacing: false) : .routeRemoved(route)])
            }
            done.signal()
        }.start()
        try #require(sink.entered.wait(timeout: .now() + 30) == .success, "the writer never flushed")
        try #require(done.wait(timeout: .now() + 60) == .success, "the hub waited for the stuck writer")
        #expect(subscriber.count == 1 + 20)
        #expect(hub.history.newest?.sequence == 21)
        // Nothing reached the disk meanwhile: the writer really was stuck.
        #expect(!FileManager.default.fileExists(atPath: HistoryFile(stateDirectory: directory).path))

        sink.release.signal()
        service.stop()
        #expect(try Self.sequences(directory) == Array(1...21))
    }
}

/// A sink whose first flush waits until released: a disk that hangs.
private final class StuckSink: StateSink, @unchecked Sendable {
    // @unchecked: the semaphores and the atomic are the synchronisation; `inner` is used by one thread at a time.
    let inner: StateWriters
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    private let isFirst = Atomic<Bool>(true)

    init(_ inner: StateWriters) { self.inner = inner }

    func flush(now: ContinuousClock.Instant, final: Bool) -> ContinuousClock.Instant? {
        if isFirst.exchange(false, ordering: .relaxed) {
            entered.signal()
            release.wait()
        }
        return inner.flush(now: .now, final: final)
    }
}

/// Counts the updates a WatchPath subscriber is sent.
private final class CountingSubscriber: Subscriber {
    let interest = Interest.path(PathParameters())
    private let updates = Atomic<Int>(0)
    var count: Int { updates.load(ordering: .relaxed) }
    func deliver(_ update: Update) { updates.add(1, ordering: .relaxed) }
}

/// A Boolean that the metrics state closure reads on the writer's thread.
private final class Flag: Sendable {
    private let state = Atomic<Bool>(false)
    var value: Bool {
        get { state.load(ordering: .relaxed) }
        set { state.store(newValue, ordering: .relaxed) }
    }
}
