// SPDX-License-Identifier: Apache-2.0
import Logging
import PathModel

#if canImport(Glibc)
    import Glibc
#endif

extension StateWriters {
    /// The history as the state directory keeps it (a damaged file set aside and logged), bounded by the
    /// configuration, and the writers for it and for the configured metrics file.
    static func load(
        configuration: Configuration, stateDirectory: String, counters: DaemonCounters, logger: Logger
    ) -> StateWriters {
        let file = HistoryFile(stateDirectory: stateDirectory)
        let loaded = file.load()
        if let problem = loaded.problem { logger.error("\(problem)") }
        if let tornTail = loaded.tornTail { logger.warning("\(tornTail)") }
        let capacity = configuration.historyEntries ?? PathHistory.defaultCapacity
        let history = HistoryLog(history: PathHistory(capacity: capacity, entries: loaded.entries))
        // A set-aside or cut-short file is replaced at the first flush, with what was kept; new entries are
        // appended only to a file that ends with a whole line.
        if loaded.problem != nil || loaded.tornTail != nil { history.markDirty() }
        // Reading a large file leaves tens of megabytes free in the allocator (the file's bytes, each line's
        // decoding): they go back to the system now, not after the daemon's lifetime.
        MemoryReturn.giveMemoryBack()
        // A newer pathmond's file is never written: this run's history stays in memory.
        return StateWriters(
            history: history, historyFile: loaded.isNewerVersion ? nil : file,
            entriesInFile: loaded.appendableEntries, metrics: nil, logger: logger)
    }

    /// Puts a configuration's `[history]` and `[metrics]` in force; `hub` is what the metrics file shows.
    func configure(
        _ configuration: Configuration, hub: PathHub, usage: UsageService? = nil, version: String, startTime: Double
    ) {
        history.setCapacity(configuration.historyEntries ?? PathHistory.defaultCapacity)
        guard let path = configuration.metricsTextfile else {
            setMetrics(nil)
            return
        }
        if let metrics, metrics.path == path { return }
        setMetrics(
            MetricsTextfile(path: path, version: version, startTimeSeconds: startTime, counters: hub.counters) {
                [weak hub, weak usage] in
                guard let hub, hub.isReady else { return nil }
                let seconds = hub.history.newest.map { Double($0.wallMicroseconds) / 1_000_000 }
                return MetricsState(
                    path: hub.systemPath, interfaces: hub.interfaces, lastChangeSeconds: seconds,
                    usage: usage?.countedSinceStart ?? [:])
            })
    }

    /// Now, in seconds since the epoch (the daemon's start time for the metrics file).
    static func wallSecondsNow() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
