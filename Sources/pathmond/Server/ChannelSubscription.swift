// SPDX-License-Identifier: Apache-2.0
/// Streams updates of one interest (a path or a flow) to one connection, newest wins: while the client is not
/// reading the latest update waits in `pending` (replacing any older one), so a stalled client costs one message
/// of memory, not a backlog. Paths and flow statuses are states, so older ones are worthless.
///
/// @unchecked Sendable: the hub holds subscribers across threads, but every method runs on the daemon's main loop,
/// where the hub's changes and the fan-out happen.
final class ChannelSubscription: Subscriber, @unchecked Sendable {
    let interest: Interest
    private let output: any StreamOutput
    private var lastGeneration: UInt64?
    private var lastSent: Published?
    private var pending: Update?
    /// Whether an update was held back since the last one sent: only then can the next one repeat what the client
    /// already has (the hub publishes an interest only when its value changed).
    private var heldBack = false

    init(interest: Interest, output: any StreamOutput) {
        self.interest = interest
        self.output = output
    }

    func deliver(_ update: Update) { send(update) }

    /// Sends now if the client is reading, else keeps it as the one pending update.
    func send(_ update: Update) {
        if let lastGeneration, update.generation <= lastGeneration { return }
        guard output.isWritable else {
            pending = update
            heldBack = true
            return
        }
        pending = nil
        lastGeneration = update.generation
        // A → B → A while the client stalled leaves A pending: it already has A, so nothing is sent. Compared only
        // after a stall: on the fan-out path the comparison of two paths cost more than the rest of the send.
        if heldBack {
            heldBack = false
            if let lastSent, lastSent == update.value { return }
        }
        lastSent = update.value
        output.write(update.streamedReply)
    }

    /// Sends the pending update once the client reads again.
    func flushPending() {
        guard let pending else { return }
        send(pending)
    }
}
