import NIOCore

/// Streams updates of one interest (a path or a flow) to one channel, newest wins: while the channel is not
/// writable the latest update waits in `pending` (replacing any older one), so a stalled client costs one message
/// of memory, not a backlog. Paths and flow statuses are states, so older ones are worthless.
final class ChannelSubscription: Subscriber, Sendable {
    private struct State {
        var lastGeneration: UInt64?
        var lastSent: Update?
        var pending: Update?
        /// Whether an update was held back since the last one sent: only then can the next one repeat what the
        /// client already has (the hub publishes an interest only when its value changed).
        var heldBack = false
    }

    let interest: Interest
    let channel: any Channel
    /// Touched only on the channel's event loop.
    private let state: NIOLoopBoundBox<State>

    init(interest: Interest, channel: any Channel) {
        self.interest = interest
        self.channel = channel
        self.state = NIOLoopBoundBox(State(), eventLoop: channel.eventLoop)
    }

    func deliver(_ update: Update) {
        if channel.eventLoop.inEventLoop {
            send(update)
        } else {
            channel.eventLoop.execute { self.send(update) }
        }
    }

    /// Sends now if the channel can take it, else keeps it as the one pending update. On the event loop only.
    func send(_ update: Update) {
        if let last = state.value.lastGeneration, update.generation <= last { return }
        guard channel.isWritable else {
            state.value.pending = update
            state.value.heldBack = true
            return
        }
        state.value.pending = nil
        state.value.lastGeneration = update.generation
        // A → B → A while the client stalled leaves A pending: it already has A, so nothing is sent. Compared only
        // after a stall: on the fan-out path the comparison of two paths cost more than the rest of the send.
        if state.value.heldBack {
            state.value.heldBack = false
            if let lastSent = state.value.lastSent, lastSent.value == update.value { return }
        }
        state.value.lastSent = update
        channel.writeAndFlush(update.streamedReply, promise: nil)
    }

    /// Sends the pending update once the channel is writable again. On the event loop only.
    func flushPending() {
        guard let pending = state.value.pending else { return }
        send(pending)
    }
}
