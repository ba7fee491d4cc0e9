import Logging
import Netlink
import ServiceLifecycle

/// Feeds the kernel's notifications into the hub, batch by batch, until shutdown.
struct KernelWatchService: Service {
    let watcher: KernelWatcher
    let hub: PathHub
    let logger: Logger
    /// Told after each batch, so hints derived from the new state (leases, SIMs) are looked up again.
    let changes: AsyncStream<Void>.Continuation

    func run() async {
        for await batch in watcher.batches().cancelOnGracefulShutdown() {
            switch batch.resync {
            case .initial:
                logger.info("kernel state loaded", metadata: ["events": "\(batch.events.count)"])
            case .overflow:
                logger.warning("netlink notifications were lost (ENOBUFS); re-dumped the kernel state")
            case .dumpInterrupted:
                logger.warning("a netlink dump was interrupted by changes; re-dumped the kernel state")
            case nil:
                logger.trace("kernel events", metadata: ["count": "\(batch.events.count)"])
            }
            hub.apply(batch.events)
            changes.yield()
        }
        changes.finish()
        watcher.stop()
    }
}
