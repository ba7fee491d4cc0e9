import NIOCore

/// Hands one change to every subscriber that must hear of it: one job per event loop, not one per subscriber, so
/// a change reaches a thousand clients in one loop turn with one write(2) each and no closure, eventfd wake-up or
/// lock per client. Each subscriber is flushed as it is written: every socket needs its own write(2) anyway, and
/// the first subscribers need not wait for the last to be queued.
enum FanOut {
    static func deliver(_ deliveries: [(any Subscriber, Update)]) {
        var batches: [ObjectIdentifier: (loop: any EventLoop, items: [(ChannelSubscription, Update)])] = [:]
        for (subscriber, update) in deliveries {
            guard let subscription = subscriber as? ChannelSubscription else {
                subscriber.deliver(update)
                continue
            }
            let loop = subscription.channel.eventLoop
            batches[ObjectIdentifier(loop), default: (loop, [])].items.append((subscription, update))
        }
        for (loop, items) in batches.values {
            loop.execute {
                for (subscription, update) in items { subscription.send(update) }
            }
        }
    }
}
