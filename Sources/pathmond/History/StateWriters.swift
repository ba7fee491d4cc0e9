import Locking
// SPDX-License-Identifier: Apache-2.0
import Logging
import PathModel

/// What the state writer's thread calls to bring the files up to date; a test puts a slow one in its place.
protocol StateSink: AnyObject, Sendable {
    /// Writes what is owed and due, blocking on disk I/O; returns the instant a write is owed but not yet allowed.
    /// With `final`, everything owed is written whatever the once-a-second limits say (the daemon stops).
    func flush(now: ContinuousClock.Instant, final: Bool) -> ContinuousClock.Instant?
}

/// The files pathmond keeps up to date beside its work: the history file and the metrics textfile. `flush` writes
/// what is behind and due: new history entries appended (the file compacted when it holds more than twice the
/// bound), at most once per `interval`, the first after a quiet interval at once; and the metrics file, on the
/// same terms (`MetricsTextfile`). It blocks on disk I/O, so only the state writer's thread calls it
/// (`StateWriterService`).
///
/// `@unchecked Sendable`: `flush` runs on one thread at a time (the writer's, or the stopping daemon's when that
/// never started), and only it touches the write state; the metrics file, swapped by a reload on the main loop,
/// is behind a lock; the history and counters it reads are Sendable themselves.
final class StateWriters: StateSink, @unchecked Sendable {
    let history: HistoryLog
    let historyFile: HistoryFile?
    /// The shortest time between two history writes: a flapping link costs the disk one append and one sync a
    /// second, not one per change.
    static let interval = Duration.seconds(1)
    /// nil while `[metrics] textfile` is not set.
    private let configuredMetrics = Locked<MetricsTextfile?>(nil)
    private let logger: Logger
    /// How many entries the file holds, while appending to it is right; nil: it is written whole next.
    private var entriesInFile: Int?
    private var lastHistoryWrite: ContinuousClock.Instant?
    /// The last failure logged per file, so a full disk costs one line, not one a second.
    private var lastFailure: [String: String] = [:]
    /// History writes so far, appends and rewrites (for tests and a reader of the code: the cost of a burst).
    private(set) var historyWrites = (appends: 0, rewrites: 0)

    init(
        history: HistoryLog, historyFile: HistoryFile?, entriesInFile: Int? = nil, metrics: MetricsTextfile?,
        logger: Logger
    ) {
        self.history = history
        self.historyFile = historyFile
        self.entriesInFile = entriesInFile
        self.logger = logger
        setMetrics(metrics)
    }

    /// The metrics file in force.
    var metrics: MetricsTextfile? { configuredMetrics.withLock { $0 } }

    /// Puts a (re)loaded configuration's metrics file in force: nil stops writing one (the old file stays).
    func setMetrics(_ metrics: MetricsTextfile?) {
        configuredMetrics.withLock { $0 = metrics }
    }

    func flush(now: ContinuousClock.Instant, final: Bool) -> ContinuousClock.Instant? {
        let historyDue = flushHistory(now: now, final: final)
        guard let metrics else { return historyDue }
        let metricsDue: ContinuousClock.Instant?
        do {
            if final {
                try metrics.remove()
                metricsDue = nil
            } else {
                metricsDue = try metrics.writeIfDue(now: now)
            }
            succeeded(metrics.path)
        } catch {
            failed(metrics.path, "cannot write the metrics file: \(error)")
            metricsDue = now + MetricsTextfile.interval
        }
        guard let historyDue, let metricsDue else { return historyDue ?? metricsDue }
        return min(historyDue, metricsDue)
    }

    /// Appends the new entries (or rewrites the file) if the interval allows; the instant it will, if not.
    private func flushHistory(now: ContinuousClock.Instant, final: Bool) -> ContinuousClock.Instant? {
        guard let historyFile, history.isBehind else { return nil }
        if !final, let lastHistoryWrite, now < lastHistoryWrite + Self.interval {
            return lastHistoryWrite + Self.interval
        }
        guard let write = history.takeEntriesToWrite(fileHolds: entriesInFile) else { return nil }
        lastHistoryWrite = now
        do {
            switch write {
            case .append(let entries):
                try historyFile.append(entries)
                entriesInFile = (entriesInFile ?? 0) + entries.count
                historyWrites.appends += 1
            case .rewrite(let entries):
                try historyFile.write(entries)
                entriesInFile = entries.count
                historyWrites.rewrites += 1
            }
            succeeded(historyFile.path)
            history.recycle(write)
        } catch {
            // What the file holds is unknown now: the next write is a whole one, tried again a second later (a
            // full disk is logged once, not once a second), so an idle daemon does not hold the entries only in
            // memory until the next change.
            entriesInFile = nil
            history.markDirty()
            failed(historyFile.path, "cannot write the path history: \(error)")
            return now + Self.interval
        }
        return nil
    }

    private func succeeded(_ path: String) {
        // Nearly always nothing failed: no hashing of the path on every write then.
        guard !lastFailure.isEmpty else { return }
        if lastFailure.removeValue(forKey: path) != nil { logger.notice("writing \(path) works again") }
    }

    private func failed(_ path: String, _ message: String) {
        guard lastFailure[path] != message else { return }
        lastFailure[path] = message
        logger.error("\(message)")
    }
}
