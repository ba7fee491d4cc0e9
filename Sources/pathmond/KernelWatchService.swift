import Logging
import Netlink
import PathModel
import ServiceLifecycle

/// Feeds the kernel's notifications into the hub, batch by batch, until shutdown. Batches are applied on the
/// watcher's own queue, the moment they are read: the hub's work is short and never blocks, and every thread hop
/// saved is latency every subscriber saves.
struct KernelWatchService: Service {
    let watcher: KernelWatcher
    let hub: PathHub
    let logger: Logger
    /// Told after each batch, so hints derived from the new state (leases, SIMs) are looked up again.
    let changes: AsyncStream<Void>.Continuation

    func run() async {
        let hub = hub
        let logger = logger
        let changes = changes
        watcher.start { batch in
            switch batch.resync {
            case .initial:
                logger.info("kernel state loaded", metadata: ["events": "\(batch.events.count)"])
            case .overflow:
                logger.warning("netlink notifications were lost (ENOBUFS); re-dumped the kernel state")
                DaemonCounters.bump(hub.counters.netlinkResyncs)
            case .dumpInterrupted:
                logger.warning("a netlink dump was interrupted by changes; re-dumped the kernel state")
                DaemonCounters.bump(hub.counters.netlinkResyncs)
            case nil:
                logger.trace("kernel events", metadata: ["count": "\(batch.events.count)"])
            }
            hub.apply(batch.events, cause: batch.resync.map(PathChangeCause.resync))
            changes.yield()
        }
        try? await gracefulShutdown()
        watcher.stop()
        changes.finish()
    }
}
