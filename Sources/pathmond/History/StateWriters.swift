import Logging
import PathModel

/// The files pathmond keeps up to date beside its work: the history file and the metrics textfile. `flush(now:)`
/// writes what is behind and due, and returns when it wants to be called again; it blocks on disk I/O, so the
/// runtime calls it off the event path (today: `StateWriterService`, once a second and on stop; the sd-event
/// runtime: a timer at the instant returned, and after each path change).
///
/// `@unchecked Sendable`: its methods are called from one task (or thread) at a time, the runtime's writer; the
/// history and counters it reads are Sendable themselves.
final class StateWriters: @unchecked Sendable {
    let history: HistoryLog
    let historyFile: HistoryFile?
    /// nil while `[metrics] textfile` is not set.
    private(set) var metrics: MetricsTextfile?
    private let logger: Logger
    /// The last failure logged per file, so a full disk costs one line, not one a second.
    private var lastFailure: [String: String] = [:]

    init(history: HistoryLog, historyFile: HistoryFile?, metrics: MetricsTextfile?, logger: Logger) {
        self.history = history
        self.historyFile = historyFile
        self.metrics = metrics
        self.logger = logger
    }

    /// Puts a (re)loaded configuration's metrics file in force: nil stops writing one (the old file stays).
    func setMetrics(_ metrics: MetricsTextfile?) {
        self.metrics = metrics
    }

    /// Writes what is behind; returns the instant a write is owed, if one could not happen yet.
    @discardableResult
    func flush(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        if let historyFile, let entries = history.takeEntriesToWrite() {
            do {
                try historyFile.write(entries)
                succeeded(historyFile.path)
            } catch {
                history.markDirty()
                failed(historyFile.path, "cannot write the path history: \(error)")
            }
        }
        guard let metrics else { return nil }
        do {
            let next = try metrics.writeIfDue(now: now)
            succeeded(metrics.path)
            return next
        } catch {
            failed(metrics.path, "cannot write the metrics file: \(error)")
            return now + MetricsTextfile.interval
        }
    }

    private func succeeded(_ path: String) {
        if lastFailure.removeValue(forKey: path) != nil { logger.notice("writing \(path) works again") }
    }

    private func failed(_ path: String, _ message: String) {
        guard lastFailure[path] != message else { return }
        lastFailure[path] = message
        logger.error("\(message)")
    }
}
