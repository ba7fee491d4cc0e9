// SPDX-License-Identifier: Apache-2.0
import Logging
import Netlink
import PathModel
import SDEvent

/// Feeds the kernel's notifications into the hub, batch by batch. The watcher reads them on the daemon's main loop
/// the moment epoll says so, and the hub's work runs right there, up to the write to each subscriber's socket: no
/// thread hop between the kernel and a subscriber.
struct KernelWatchService {
    let watcher: KernelWatcher
    let hub: PathHub
    let logger: Logger
    /// Called on the main loop after each batch that changed links or addresses, so hints derived from the
    /// interfaces (leases, SIMs, NetworkManager's devices) follow them. A route storm does not call it.
    let afterBatch: () -> Void
    /// Called on the main loop once the first snapshot is in the hub: clients may be served from then on.
    let afterFirstSnapshot: () -> Void

    func start() {
        let hub = hub
        let logger = logger
        // Called on the main loop only, where they were made.
        let batchDone = UncheckedHandler<Void>(afterBatch)
        let firstSnapshotDone = UncheckedHandler<Void>(afterFirstSnapshot)
        watcher.start { batch in
            switch batch.resync {
            case .initial:
                logger.info("kernel state loaded", metadata: ["events": "\(batch.events.count)"])
            case .overflow:
                logger.warning(
                    "netlink notifications were lost (ENOBUFS); re-dumped the kernel state",
                    metadata: JournalRecord.resync.metadata([.cause: PathChangeCause.Kind.resync.rawValue]))
                DaemonCounters.bump(hub.counters.netlinkResyncs)
            case .dumpInterrupted:
                logger.warning(
                    "a netlink dump was interrupted by changes; re-dumped the kernel state",
                    metadata: JournalRecord.resync.metadata([.cause: PathChangeCause.Kind.resync.rawValue]))
                DaemonCounters.bump(hub.counters.netlinkResyncs)
            case nil:
                logger.trace("kernel events", metadata: ["count": "\(batch.events.count)"])
            }
            hub.apply(
                batch.events, cause: batch.resync.map(PathChangeCause.resync), awaiting: batch.awaiting,
                queriesVersion: batch.queriesVersion, answered: batch.answered)
            if batch.resync == .initial { firstSnapshotDone.call(()) }
            if batch.events.contains(where: \.changesInterfaces) { batchDone.call(()) }
        }
    }

    func stop() {
        watcher.stop()
    }
}
