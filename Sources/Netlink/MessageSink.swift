// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import PathModel

/// Collects the events converted from the messages one receive call delivers.
///
/// libnl calls `validMessage` synchronously inside nl_recvmsgs, on the receiving thread, with a message that is only
/// borrowed for the call: it is converted and copied at once, never kept.
final class MessageSink {
    /// Events converted so far, in message order.
    var events: [KernelEvent] = []
    /// Messages that could not be converted ("…, ignoring"); kept as a count for tests and diagnostics.
    var ignoredMessages = 0
    /// What the messages since the last `takeRoutingChange()` may have changed in the kernel's routing decisions,
    /// whether the model keeps them or not (a host route, a rule, a nexthop, a link or an address).
    private var routingChange = RoutingChange()

    /// Whether the route follower reads a neighbour message (`RouteFollower.reads`): set on the notifications'
    /// sink, so that a LAN's churn, every entry of every host on it, and a gateway's entry moving between REACHABLE
    /// and STALE are left at their header instead of being converted, noted and handed to the follower, which would
    /// drop them (`KernelState.applyDroppingNoOps`). nil: every entry is read (a dump's sink).
    var readsNeighbour: ((NeighbourMessage) -> Bool)?
    /// Whether a message other than a neighbour's came since the last `takeRoutingChange()`: the follower has not
    /// seen it yet, and a route it adds may make any entry after it a gateway's, so none is left out then.
    private var gatewaysMayMove = false
    /// Whether any message was collected since the last `takeRoutingChange()`: the follower has not applied it
    /// yet, so what it holds of an entry may not be the entry as the kernel had it before the next message.
    private var collectedSinceFollowed = false

    /// The routing change since the last call; starts afresh.
    func takeRoutingChange() -> RoutingChange {
        defer {
            routingChange = RoutingChange()
            gatewaysMayMove = false
            collectedSinceFollowed = false
        }
        return routingChange
    }

    /// Takes the collected events, leaving the sink empty.
    func take() -> [KernelEvent] {
        defer { events = [] }
        return events
    }

    /// A message read without libnl (the notification socket's own reader); borrowed for the call.
    func receive(header: UnsafeMutablePointer<nlmsghdr>) {
        let type = Int32(header.pointee.nlmsg_type)
        if type == Int32(RTM_NEWNEIGH) || type == Int32(RTM_DELNEIGH) {
            if let readsNeighbour, !gatewaysMayMove,
                let message = NeighbourMessage(header, followerIsCurrent: !collectedSinceFollowed),
                !readsNeighbour(message)
            {
                return
            }
        } else {
            gatewaysMayMove = true
        }
        collectedSinceFollowed = true
        routingChange.note(header)
        collect(KernelMessage.events(from: header))
    }

    private func collect(_ conversion: KernelMessage.Conversion) {
        switch conversion {
        case .converted(let event): events.appendMergingRules(event)
        case .convertedHops(let hops): events.append(contentsOf: hops)
        case .notRelevant: break
        case .malformed: ignoredMessages += 1
        }
    }

    fileprivate func receive(_ message: OpaquePointer) {
        if let header = nlmsg_hdr(message) { routingChange.note(header) }
        collect(KernelMessage.events(from: message))
    }

    /// The NL_CB_VALID callback; `argument` is an unretained `MessageSink` that its socket keeps alive.
    static let validMessage: nl_recvmsg_msg_cb_t = { message, argument in
        guard let message, let argument else { return Int32(NL_SKIP.rawValue) }
        Unmanaged<MessageSink>.fromOpaque(argument).takeUnretainedValue().receive(message)
        return Int32(NL_OK.rawValue)
    }
}

extension [KernelEvent] {
    /// Room for what one message's batch most often holds: its event, the follower's new answers and a gateway's
    /// neighbour found, made when the first event comes (growing an array of one to two, then four, was two more
    /// allocations for every route flip).
    static let usualBatchCapacity = 4

    /// Appends `events`, but a rule change right after another is dropped: the kernel sends each rule in a message
    /// (and a datagram) of its own, and a storm of rules is one cause, not one event per rule.
    mutating func appendMergingRules(_ events: some Sequence<KernelEvent>) {
        for event in events { appendMergingRules(event) }
    }

    /// Appends `event`, unless it is a rule change right after another.
    mutating func appendMergingRules(_ event: KernelEvent) {
        if case .rulesChanged = event, case .rulesChanged? = last { return }
        if isEmpty { reserveCapacity(Self.usualBatchCapacity) }
        append(event)
    }
}
