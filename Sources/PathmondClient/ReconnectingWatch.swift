// SPDX-License-Identifier: Apache-2.0
import Locking
import PathModel

/// What a watch reports: a value from pathmond, or that pathmond cannot be reached (the value is then unknown).
package enum WatchEvent<Value: Sendable & Equatable>: Sendable, Equatable {
    case value(Value)
    case unavailable(PathmondClientError)
}

/// The engine behind `NetworkPathMonitor` and `FlowMonitor` (PathMonitor) and pathctl's watches: one streaming call
/// to pathmond on a thread of its own, re-made after the daemon goes away, with its events fanned out, in order, to
/// any number of consumers. Blocking threads only, no Dispatch and no Swift concurrency: pathctl links neither
/// (issue 41); PathMonitor adds the queues and sequences apps use.
package final class ReconnectingWatch<Value: Sendable & Equatable>: Sendable {
    /// Runs the streaming call on a fresh connection, handing each value to the closure until it returns false.
    package typealias Call = @Sendable (PathmondConnection, (Value) -> Bool) throws(PathmondClientError) -> Void

    private struct State {
        var current: WatchEvent<Value>?
        var consumers: [UInt64: Consumer] = [:]
        var nextConsumer: UInt64 = 0
        var isStarted = false
        var isCancelled = false
        var connection: PathmondConnection?
        /// Refusals in a row (pathmond answered with an error): each doubles the wait before the next try.
        var refusals = 0
    }

    /// Where events go: a handler, or an AsyncStream that must also be finished on cancel.
    package struct Consumer: Sendable {
        let deliver: @Sendable (WatchEvent<Value>) -> Void
        let finish: @Sendable () -> Void

        package init(
            deliver: @escaping @Sendable (WatchEvent<Value>) -> Void, finish: @escaping @Sendable () -> Void = {}
        ) {
            self.deliver = deliver
            self.finish = finish
        }
    }

    private let socketPath: String
    private let retryDelay: Duration
    private let call: Call
    private let state = Locked(State())
    /// Signalled by `cancel` to cut a reconnect wait short.
    private let wakeUp = WakeUp()

    package init(socketPath: String, retryDelay: Duration, call: @escaping Call) {
        self.socketPath = socketPath
        self.retryDelay = retryDelay
        self.call = call
    }

    deinit {
        // The connection thread holds the watch only weakly; closing its socket lets it notice and end.
        cancel()
    }

    /// The latest event, if any.
    package var current: WatchEvent<Value>? { state.withLock { $0.current } }

    /// Registers a consumer, hands it the current event, and starts the connection thread on first use. Returns
    /// nil if the watch was cancelled. Deliveries happen under the lock (they only enqueue), so every consumer
    /// sees events in the order pathmond sent them.
    package func addConsumer(_ consumer: Consumer) -> UInt64? {
        let (token, mustStart) = state.withLock { state -> (UInt64?, Bool) in
            guard !state.isCancelled else { return (nil, false) }
            let token = state.nextConsumer
            state.nextConsumer += 1
            state.consumers[token] = consumer
            if let current = state.current { consumer.deliver(current) }
            let mustStart = !state.isStarted
            state.isStarted = true
            return (token, mustStart)
        }
        if mustStart { startConnectionThread() }
        return token
    }

    package func removeConsumer(_ token: UInt64?) {
        guard let token else { return }
        _ = state.withLock { $0.consumers.removeValue(forKey: token) }
    }

    /// Stops for good: the connection closes and every consumer is finished.
    package func cancel() {
        let (connection, consumers) = state.withLock { state -> (PathmondConnection?, [Consumer]) in
            state.isCancelled = true
            defer { state.consumers = [:] }
            return (state.connection, Array(state.consumers.values))
        }
        connection?.close()
        for consumer in consumers { consumer.finish() }
        wakeUp.signal()
    }

    private func publish(_ event: WatchEvent<Value>) {
        state.withLock { state in
            guard !state.isCancelled, state.current != event else { return }
            state.current = event
            for consumer in state.consumers.values { consumer.deliver(event) }
        }
    }

    private var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// The connection loop runs on its own thread: the socket calls block, and an app's executor must not. The
    /// thread refers to the watch weakly, and only between blocking calls, so dropping the watch ends it.
    private func startConnectionThread() {
        let watch = Weak(self)
        DetachedThread { ReconnectingWatch.connectionLoop(watch) }.start()
    }

    private static func connectionLoop(_ watch: Weak<ReconnectingWatch>) {
        while let attempt = watch.value?.connect() {
            if let (connection, call) = attempt {
                do {
                    try call(connection) { value in
                        guard let current = watch.value else { return false }
                        current.state.withLock { $0.refusals = 0 }
                        current.publish(.value(value))
                        return !current.isCancelled
                    }
                } catch {
                    watch.value?.connectionEnded(error)
                }
            }
            guard let (wakeUp, delay) = watch.value?.retryWait() else { return }
            wakeUp.wait(timeout: delay)
        }
    }

    /// One attempt to reach the daemon: nil when cancelled (stop), `.some(nil)` when it failed (retry).
    private func connect() -> (PathmondConnection, Call)?? {
        guard !isCancelled else { return nil }
        do {
            let connection = try PathmondConnection(socketPath: socketPath, replyTimeout: nil)
            let accepted = state.withLock { state -> Bool in
                guard !state.isCancelled else { return false }
                state.connection = connection
                return true
            }
            return accepted ? .some((connection, call)) : nil
        } catch {
            publish(.unavailable(error))
            return .some(nil)
        }
    }

    private func connectionEnded(_ error: PathmondClientError) {
        state.withLock { state in
            state.connection = nil
            // An answer such as MethodNotFound (an older daemon) or InvalidParameter will not change by asking
            // again at once: back off, up to half a minute, until a value arrives.
            if case .remote = error { state.refusals += 1 }
        }
        if !isCancelled { publish(.unavailable(error)) }
    }

    private func retryWait() -> (WakeUp, Duration)? {
        let refusals = state.withLock { $0.refusals }
        let delay = refusals == 0 ? retryDelay : min(.seconds(30), retryDelay * (1 << min(refusals, 16)))
        return isCancelled ? nil : (wakeUp, delay)
    }
}

/// A weak reference the connection thread can hold without keeping its owner alive.
private final class Weak<Object: AnyObject & Sendable>: Sendable {
    weak let value: Object?
    init(_ value: Object) { self.value = value }
}

extension ReconnectingWatch where Value == Path {
    /// A watch of the path for `parameters` as pathmond at `socketPath` serves it: `NetworkPathMonitor`'s, and
    /// what pathctl's monitor, wait and exec follow.
    package static func path(
        parameters: PathParameters, socketPath: String, retryDelay: Duration = .milliseconds(250)
    ) -> ReconnectingWatch<Path> {
        ReconnectingWatch(socketPath: socketPath, retryDelay: retryDelay) {
            connection, handler throws(PathmondClientError) in
            try connection.watchPath(parameters: parameters, handler)
        }
    }
}
