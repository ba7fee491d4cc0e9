// SPDX-License-Identifier: Apache-2.0
import Glibc
import SDEvent

/// Why a `DirectoryWatcher` could not be made.
public struct DirectoryWatcherError: Error, Hashable, CustomStringConvertible {
    /// The `errno` of the failed `inotify_init1`: EMFILE when the user's inotify instances
    /// (fs.inotify.max_user_instances) or the process's descriptors are used up.
    public var errno: Int32

    /// A sentence for a log.
    public var description: String { "inotify_init1 failed: \(String(cString: strerror(errno)))" }
}

/// Tells its owner, on a loop, whenever something in a set of directories changed. Driven by inotify only: no
/// polling, no timer.
///
/// It watches directories, not files, because the files that matter (resolv.conf, leases) are replaced by rename:
/// a watch on the old file would see nothing of the new one. A directory that does not exist yet is stood in for by
/// its nearest existing ancestor below the root, so that it is noticed when it appears. The set is asked for again
/// after every change (it may follow a symbolic link). Events are not told apart: each one, and IN_Q_OVERFLOW
/// (events were lost) alike, means "look again".
///
/// Used only on its loop's thread: made, started and stopped there, and its handler runs there.
public final class DirectoryWatcher {
    /// What to watch for: entries created, deleted, renamed in or out, or written; and the directory itself going
    /// away, which calls for watching its parent instead.
    private static let closedChanges =
        UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF)
        | UInt32(IN_ONLYDIR)

    /// With `followsAppends`, writes to a file still open count too (IN_MODIFY): dhclient appends each renewed
    /// lease to a lease file it keeps open, and rewrites it by rename only now and then.
    private let mask: UInt32

    private let descriptor: Int32
    private let directories: () -> [String]
    private let loop: SDEventLoop
    /// Watch descriptors by the path they were added for.
    private var watches: [String: Int32] = [:]
    private var source: SDEventSource?
    private var onChange: (() -> Void)?

    /// Opens the inotify instance and adds the watches; nothing is reported until `start(onChange:)`.
    public init(
        directories: @escaping () -> [String], loop: SDEventLoop, followsAppends: Bool = false
    ) throws(DirectoryWatcherError) {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw DirectoryWatcherError(errno: errno) }
        mask = Self.closedChanges | (followsAppends ? UInt32(IN_MODIFY) : 0)
        self.directories = directories
        self.loop = loop
        updateWatches()
    }

    deinit {
        stop()
    }

    /// Calls `onChange` after each batch of changes. Watches were added in `init`, so whatever the owner reads
    /// after making the watcher, a change after that read is reported.
    public func start(onChange: @escaping () -> Void) {
        self.onChange = onChange
        source = try? loop.watchReadable(descriptor) { [weak self] in self?.eventsArrived() }
    }

    /// Stops watching and closes the inotify instance. Safe to call more than once.
    public func stop() {
        guard onChange != nil || source != nil || !watches.isEmpty || descriptorIsOpen else { return }
        // The source first: the loop must stop watching the descriptor before its number can be reused.
        source?.cancel()
        source = nil
        onChange = nil
        watches = [:]
        if descriptorIsOpen {
            close(descriptor)
            descriptorIsOpen = false
        }
    }

    private var descriptorIsOpen = true

    /// Drains the inotify queue, watches what is to be watched now, and tells the owner.
    private func eventsArrived() {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            // 0 or EAGAIN: drained. Any other error would repeat on every wake-up; the owner looks again anyway.
            if count <= 0 { break }
        }
        updateWatches()
        onChange?()
    }

    /// Adds a watch on each directory (or its nearest existing ancestor), and removes those no longer needed.
    /// Adding is idempotent for a directory already watched and gives a new watch for one that was deleted and made
    /// again, so it is simply done each time.
    private func updateWatches() {
        var next: [String: Int32] = [:]
        for directory in directories() {
            guard let existing = Self.nearestExistingDirectory(directory), next[existing] == nil else { continue }
            let watch = inotify_add_watch(descriptor, existing, mask)
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
