// SPDX-License-Identifier: Apache-2.0
import PathModel
import SDEvent
import Synchronization

/// Why a `ResolverWatcher` could not be made.
public typealias ResolverWatcherError = DirectoryWatcherError

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
    private let loop: SDEventLoop
    private let ownsLoop: Bool
    private let state: ResolverWatchState
    private let streamHandedOut = Atomic<Bool>(false)

    /// Nothing is watched or read until `start(handler:)` or `configurations()`.
    ///
    /// - Parameter loop: The loop that reads inotify and calls the handler; nil: a loop on a thread of its own.
    public init(reader: ResolverConfigurationReader = ResolverConfigurationReader(), loop: SDEventLoop? = nil)
        throws(ResolverWatcherError)
    {
        if let loop {
            (self.loop, ownsLoop) = (loop, false)
        } else {
            do throws(SDEventError) {
                (self.loop, ownsLoop) = (try SDEventLoop.startedOnNewThread(name: "pathmond-resolv"), true)
            } catch {
                throw ResolverWatcherError(errno: error.errno)
            }
        }
        state = ResolverWatchState(reader: reader, loop: self.loop)
    }

    deinit {
        let state = self.state
        loop.execute { state.shutdown() }
        if ownsLoop { loop.exit() }
    }

    /// Calls `handler` on the loop with the configuration at once, then with each new one whenever it changed.
    /// If inotify cannot be used (its limits are reached), `watchFailed` is told and the configuration is read
    /// once. Call once (or `configurations()`, once).
    public func start(
        handler: @escaping (ResolverConfiguration) -> Void,
        watchFailed: @escaping (ResolverWatcherError) -> Void = { _ in }
    ) {
        let (first, _) = streamHandedOut.compareExchange(expected: false, desired: true, ordering: .relaxed)
        precondition(first, "ResolverWatcher has one consumer: start(handler:) or configurations(), once")
        let state = self.state
        let handlers = UncheckedTransfer((handler, watchFailed))
        loop.execute { state.start(handlers.value.0, onStop: {}, failed: handlers.value.1) }
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
        let state = self.state
        loop.execute { state.start({ continuation.yield($0) }, onStop: { continuation.finish() }, failed: { _ in }) }
        return stream
    }

    /// Stops watching and finishes the stream. Safe to call more than once and from any thread.
    public func stop() {
        let state = self.state
        loop.execute { state.shutdown() }
    }
}

/// The watcher's mutable state.
///
/// Sendable: what changes is loop-bound (checked) to the watcher's loop, where it is used (each entry point is a
/// `loop.execute` in `ResolverWatcher`, and the directory watcher's handler runs there).
private final class ResolverWatchState: Sendable {
    private let reader: ResolverConfigurationReader
    private let loop: SDEventLoop
    private let state: LoopBound<State>

    private struct State {
        var directories: DirectoryWatcher?
        var handler: ((ResolverConfiguration) -> Void)?
        var onStop: (() -> Void)?
        var current: ResolverConfiguration?
        var isStopped = false
    }

    init(reader: ResolverConfigurationReader, loop: SDEventLoop) {
        self.reader = reader
        self.loop = loop
        state = LoopBound(State(), on: loop)
    }

    func start(
        _ handler: @escaping (ResolverConfiguration) -> Void, onStop: @escaping () -> Void,
        failed: @escaping (DirectoryWatcherError) -> Void
    ) {
        guard !state.value.isStopped else { return onStop() }
        state.value.handler = handler
        state.value.onStop = onStop
        let reader = reader
        do {
            // Watches first, then the first read: a change between the two is an event, not a miss.
            let directories = try DirectoryWatcher(directories: { reader.directoriesToWatch }, loop: loop)
            directories.start { [weak self] in self?.publish() }
            state.value.directories = directories
        } catch {
            failed(error)
        }
        publish()
    }

    func shutdown() {
        guard !state.value.isStopped else { return }
        state.value.isStopped = true
        state.value.directories?.stop()
        state.value.directories = nil
        state.value.handler = nil
        // Called outside the state: finishing a stream may come back in.
        let onStop = state.value.onStop
        state.value.onStop = nil
        onStop?()
    }

    private func publish() {
        let configuration = reader.read()
        guard configuration != state.value.current else { return }
        state.value.current = configuration
        let handler = state.value.handler
        handler?(configuration)
    }
}
