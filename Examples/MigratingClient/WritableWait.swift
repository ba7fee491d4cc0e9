// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Synchronization

/// How a wait for a connecting socket ended.
enum WritableWaitOutcome: Sendable {
    /// The socket became writable: the connect finished, successfully or not (SO_ERROR says which).
    case writable
    /// The time allowed passed first.
    case timedOut
    /// The waiting task was cancelled.
    case cancelled
}

/// Waits until a socket with a non-blocking connect in progress becomes writable, `timeout` passes, or the task is
/// cancelled, whichever comes first. A Dispatch source watches the descriptor, so no thread is held while waiting.
///
/// The caller may close the descriptor as soon as this returns: the result is only delivered from the source's
/// cancellation handler, and Dispatch runs that only once it has stopped watching the descriptor.
func waitUntilWritable(_ descriptor: Int32, timeout: Duration) async -> WritableWaitOutcome {
    let wait = WritableWait(descriptor)
    return await withTaskCancellationHandler {
        await withCheckedContinuation { wait.start($0, timeout: timeout) }
    } onCancel: {
        wait.end(.cancelled)
    }
}

/// One wait: the first of the three endings wins and cancels the source; the continuation is resumed once, from
/// the source's cancellation handler.
private final class WritableWait: @unchecked Sendable {
    // @unchecked: `source` and `queue` never change and Dispatch objects may be used from any thread; the mutable
    // state is behind `state`.
    private let queue = DispatchQueue(label: "migrating-client.connect")
    private let source: any DispatchSourceWrite
    private let state = Mutex(State())

    private struct State {
        var continuation: CheckedContinuation<WritableWaitOutcome, Never>?
        var outcome: WritableWaitOutcome?
    }

    init(_ descriptor: Int32) {
        source = DispatchSource.makeWriteSource(fileDescriptor: descriptor, queue: queue)
        // Set before anything can cancel the source. The handlers hold `self` until Dispatch drops them on
        // cancellation, which one of the three endings always brings.
        source.setEventHandler { self.end(.writable) }
        source.setCancelHandler { self.resume() }
    }

    /// Starts watching; if the task was cancelled before this, ends at once.
    func start(_ continuation: CheckedContinuation<WritableWaitOutcome, Never>, timeout: Duration) {
        let endedEarly = state.withLock { state in
            state.continuation = continuation
            return state.outcome != nil
        }
        // Cancelling before activating is allowed: the cancellation handler still runs, once activated.
        if endedEarly { source.cancel() }
        source.activate()
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(timeout / .nanoseconds(1)))) { self.end(.timedOut) }
    }

    /// Records the first outcome and stops the source; later outcomes are ignored.
    func end(_ outcome: WritableWaitOutcome) {
        let isFirst = state.withLock { state in
            guard state.outcome == nil else { return false }
            state.outcome = outcome
            return true
        }
        if isFirst { source.cancel() }
    }

    /// Called by the source's cancellation handler: the descriptor is no longer watched.
    private func resume() {
        let (continuation, outcome) = state.withLock { state in
            defer { state.continuation = nil }
            return (state.continuation, state.outcome ?? .cancelled)
        }
        continuation?.resume(returning: outcome)
    }
}
