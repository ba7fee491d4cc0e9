import Dispatch
import Glibc
import PathModel
import Synchronization

/// Why a `ResolverWatcher` could not be made.
public struct ResolverWatcherError: Error, Hashable, CustomStringConvertible {
    /// The `errno` of the failed `inotify_init1`: EMFILE when the user's inotify instances
    /// (fs.inotify.max_user_instances) or the process's descriptors are used up.
    public var errno: Int32

    /// A sentence for a log.
    public var description: String { "inotify_init1 failed: \(String(cString: strerror(errno)))" }
}

/// Watches the resolver configuration and delivers it whenever it changes. Driven by inotify events only: no
/// polling, no timer.
///
/// It watches directories, not files, because resolv.conf and resolved's files are replaced by rename: a watch on
/// the old file would see nothing of the new one. The directories are the one holding resolv.conf, the one its
/// symbolic link points into (followed when the link changes), systemd-resolved's directory and its netif/, and
/// networkd's links directory; one that does not exist yet is stood in for by its nearest existing ancestor below
/// the root, so that it is noticed when it appears. Any event in them, a queue overflow included, means "read
/// again"; the new configuration is delivered only if it differs from the last one.
public final class ResolverWatcher: Sendable {
    private let queue = DispatchQueue(label: "pathmond.resolver.watcher")
    private let state: ResolverWatchState
    private let streamHandedOut = Atomic<Bool>(false)

    /// Opens the inotify instance; nothing is watched or read until `configurations()`.
    public init(reader: ResolverConfigurationReader = ResolverConfigurationReader()) throws(ResolverWatcherError) {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw ResolverWatcherError(errno: errno) }
        state = ResolverWatchState(descriptor: descriptor, reader: reader)
    }

    deinit {
        let state = state
        queue.async { state.shutdown() }
    }

    /// The configuration at once, then each new one whenever it changed. Keep the watcher while consuming: it
    /// stops when released.
    ///
    /// There is one consumer: calling this twice is a programmer error. Ending the iteration stops the watcher.
    public func configurations() -> AsyncStream<ResolverConfiguration> {
        let (first, _) = streamHandedOut.compareExchange(expected: false, desired: true, ordering: .relaxed)
        precondition(first, "ResolverWatcher.configurations() has one consumer and may be called once")
        let (stream, continuation) = AsyncStream.makeStream(of: ResolverConfiguration.self)
        continuation.onTermination = { [weak self] _ in self?.stop() }
        let state = state
        let queue = queue
        queue.async { state.start(continuation, queue: queue) }
        return stream
    }

    /// Stops watching and finishes the stream. Safe to call more than once and from any thread.
    public func stop() {
        let state = state
        queue.async { state.shutdown() }
    }
}

/// The watcher's mutable state.
///
/// @unchecked Sendable: every property is read and written only on the watcher's serial queue (each entry point is
/// a `queue.async` in `ResolverWatcher`, and the read source's handlers run on that queue).
private final class ResolverWatchState: @unchecked Sendable {
    /// What to watch for: entries created, deleted, renamed in or out, or written; and the directory itself going
    /// away, which calls for watching its parent instead.
    private static let mask =
        UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF)
        | UInt32(IN_ONLYDIR)

    private let descriptor: Int32
    private let reader: ResolverConfigurationReader
    /// Watch descriptors by the path they were added for.
    private var watches: [String: Int32] = [:]
    private var source: (any DispatchSourceRead)?
    private var continuation: AsyncStream<ResolverConfiguration>.Continuation?
    private var current: ResolverConfiguration?
    private var isStopped = false
    /// Whether the descriptor is still ours to close (the read source's cancel handler closes it once it exists).
    private var ownsDescriptor = true

    init(descriptor: Int32, reader: ResolverConfigurationReader) {
        self.descriptor = descriptor
        self.reader = reader
    }

    func start(_ continuation: AsyncStream<ResolverConfiguration>.Continuation, queue: DispatchQueue) {
        guard !isStopped else {
            continuation.finish()
            return
        }
        self.continuation = continuation
        // Watches first, then the first read: a change between the two is an event, not a miss.
        updateWatches()
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        source.setEventHandler { [weak self] in self?.eventsArrived() }
        let descriptor = descriptor
        // The descriptor stays open until the source is cancelled, or Dispatch could watch a reused number.
        source.setCancelHandler { close(descriptor) }
        ownsDescriptor = false
        self.source = source
        source.resume()
        publish()
    }

    func shutdown() {
        guard !isStopped else { return }
        isStopped = true
        source?.cancel()
        source = nil
        if ownsDescriptor { close(descriptor) }
        ownsDescriptor = false
        continuation?.finish()
        continuation = nil
    }

    /// Drains the inotify queue and reads the configuration again. Events are not told apart: each one, and
    /// IN_Q_OVERFLOW (events were lost) alike, means the files may have changed, and reading them is cheap.
    private func eventsArrived() {
        guard !isStopped else { return }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            // 0 or EAGAIN: drained. Any other error would repeat on every wake-up; the read below still runs.
            if count <= 0 { break }
        }
        updateWatches()
        publish()
    }

    /// Adds a watch on each directory the configuration depends on (or its nearest existing ancestor), and removes
    /// those no longer needed. Adding is idempotent for a directory already watched and gives a new watch for one
    /// that was deleted and made again, so it is simply done each time.
    private func updateWatches() {
        var next: [String: Int32] = [:]
        for directory in reader.directoriesToWatch {
            guard let existing = Self.nearestExistingDirectory(directory), next[existing] == nil else { continue }
            let watch = inotify_add_watch(descriptor, existing, Self.mask)
            // ENOENT (gone meanwhile: its removal was an event, so the next pass sees it) or ENOSPC (the user's
            // watches are used up): this directory goes unwatched until the next event.
            if watch >= 0 { next[existing] = watch }
        }
        let kept = Set(next.values)
        for (path, watch) in watches where next[path] == nil && !kept.contains(watch) {
            inotify_rm_watch(descriptor, watch)
        }
        watches = next
    }

    private func publish() {
        let configuration = reader.read()
        guard configuration != current else { return }
        current = configuration
        continuation?.yield(configuration)
    }

    /// `path` if it is a directory, else its closest ancestor that is; nil past the root, which is not worth
    /// watching for a directory that may never appear.
    static func nearestExistingDirectory(_ path: String) -> String? {
        var candidate = path
        while candidate != "/" && candidate != "." {
            var status = stat()
            if stat(candidate, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR { return candidate }
            candidate = ResolverConfigurationReader.parent(of: candidate)
        }
        return nil
    }
}
