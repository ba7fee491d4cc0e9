// SPDX-License-Identifier: Apache-2.0
import SDEvent

/// Streams updates of one interest (a path or a flow) to one connection, newest wins: while the client is not
/// reading the latest update waits in `pending` (replacing any older one), so a stalled client costs one message
/// of memory, not a backlog. Paths and flow statuses are states, so older ones are worthless.
///
/// The hub holds subscribers across threads, but every method runs on the daemon's main loop, where the hub's
/// changes and the fan-out happen: the state is `LoopBound`, so a call from anywhere else traps.
final class ChannelSubscription: Subscriber {
    let interest: Interest
    private let state: LoopBound<State>

    fileprivate struct State {
        let output: any StreamOutput
        var lastGeneration: UInt64?
        /// The update last written: kept by reference (a path copied into each subscriber's state cost more than
        /// the rest of a send).
        var lastSent: Update?
        var pending: Update?
        /// Whether an update was held back since the last one sent: only then can the next one repeat what the
        /// client already has (the hub publishes an interest only when its value changed).
        var heldBack = false
    }

    init(interest: Interest, output: any StreamOutput, loop: SDEventLoop) {
        self.interest = interest
        self.state = LoopBound(State(output: output), on: loop)
    }

    func deliver(_ update: Update) { send(update) }

    /// Sends now if the client is reading, else keeps it as the one pending update.
    func send(_ update: Update) {
        // Decided inside the loop-bound state, written outside it: a write that fails closes the connection,
        // which may reach back here.
        let (output, reply) = state.value.admit(update)
        if let reply { output.write(reply) }
    }

    /// Sends the pending update once the client reads again.
    func flushPending() {
        guard let pending = state.value.pending else { return }
        send(pending)
    }
}

extension ChannelSubscription.State {
    /// The reply to write for `update` now, if any; a client not reading keeps it as the pending one.
    mutating func admit(_ update: Update) -> (any StreamOutput, [UInt8]?) {
        if let lastGeneration, update.generation <= lastGeneration { return (output, nil) }
        guard output.isWritable else {
            pending = update
            heldBack = true
            return (output, nil)
        }
        pending = nil
        lastGeneration = update.generation
        // A → B → A while the client stalled leaves A pending: it already has A, so nothing is sent. Compared only
        // after a stall: on the fan-out path the comparison of two paths cost more than the rest of the send.
        if heldBack {
            heldBack = false
            if let lastSent, lastSent.value == update.value { return (output, nil) }
        }
        lastSent = update
        return (output, update.streamedReply)
    }
}
