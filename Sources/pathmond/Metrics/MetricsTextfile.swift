// SPDX-License-Identifier: Apache-2.0
import PathModel
import StateFiles

/// The metrics file node_exporter's textfile collector reads (`[metrics] textfile`): rewritten atomically when
/// something it shows changed, at most once a second. Synchronous and free of timers: the state writer's thread
/// calls `writeIfDue(now:)` (after a path change, and again at the instant it returns), so a burst of changes
/// costs one write a second and the last change is always written. What it shows is read and rendered there, off
/// the event path, and compared with what it last wrote, so an idle daemon never rewrites the file.
///
/// `@unchecked Sendable`: made on the main loop (a reload), then used by the writer's thread alone.
final class MetricsTextfile: @unchecked Sendable {
    /// The file; a reload that names another makes a new `MetricsTextfile`.
    let path: String
    private let renderer: MetricsRenderer
    private let counters: DaemonCounters
    /// The state the file shows: read when writing.
    /// nil while there is nothing true to show yet (before the first kernel snapshot).
    private let state: @Sendable () -> MetricsState?
    private var lastWrite: ContinuousClock.Instant?
    private var written: (MetricsState, DaemonCounters.Snapshot)?
    /// The shortest time between two writes.
    static let interval = Duration.seconds(1)

    init(
        path: String, version: String, startTimeSeconds: Double, counters: DaemonCounters,
        state: @escaping @Sendable () -> MetricsState?
    ) {
        self.path = path
        self.renderer = MetricsRenderer(version: version, startTimeSeconds: startTimeSeconds)
        self.counters = counters
        self.state = state
    }

    /// Writes the file if it is behind (the state or a counter changed) and a second has passed since the last
    /// write. Returns when to call again if a write is owed but not yet allowed; nil if nothing is owed.
    @discardableResult
    func writeIfDue(now: ContinuousClock.Instant) throws(StateFileError)
        -> ContinuousClock.Instant?
    {
        let snapshot = counters.snapshot
        // A file claiming "no path" while pathmond starts would page someone: nothing is written until it knows.
        guard let current = state() else { return nil }
        if let written, written.0 == current, written.1 == snapshot { return nil }
        if let lastWrite, now < lastWrite + Self.interval { return lastWrite + Self.interval }
        let bytes = renderer.render(
            path: current.path, interfaces: current.interfaces, counters: snapshot,
            lastChangeSeconds: current.lastChangeSeconds, usage: current.usage)
        lastWrite = now
        // node_exporter runs as its own user: the file is for everyone to read (it holds nothing private).
        // Not synced: the file is rewritten within a second of every change and again at start.
        try StateFileWriter.replace(path, with: bytes, mode: 0o644, durable: false)
        written = (current, snapshot)
        return nil
    }
}

extension MetricsTextfile {
    /// Takes the file away when the daemon stops: node_exporter would otherwise serve its last values (an
    /// expensive path, a satisfied one) for as long as the file stays, as if pathmond still said so. Without the
    /// file the series disappear, which is what alerting on `absent(pathmond_path_status)` expects.
    func remove() throws(StateFileError) {
        try FileSystem.remove(path)
    }
}

/// What the metrics file shows of the daemon's state.
struct MetricsState: Sendable, Hashable {
    var path: Path
    var interfaces: [InterfaceStatus]
    /// When the system path last changed, seconds since the epoch; nil if never (that pathmond knows of).
    var lastChangeSeconds: Double?
    /// Bytes per network counted since pathmond started (issue 43).
    var usage: [NetworkKey: ByteCounts] = [:]
}
