// SPDX-License-Identifier: Apache-2.0
import PathModel
import SDEvent

extension KernelWatcher {
    /// What changes as the watcher runs: its sockets, caches, timers and what it last delivered.
    struct State {
        /// Request/response only: dumps never mix with notifications. Replaced if a dump fails in a way that could
        /// leave unread replies behind.
        var requests: NetlinkSocket
        var deviceFacts: DeviceFactsCache
        /// WireGuard links' peer endpoints, from generic netlink.
        var tunnelPeers: TunnelPeerCache
        /// Asks the kernel's own routing decisions after each batch that may have changed them.
        let routing: RouteFollower
        var source: SDEventSource?
        var retry: SDEventSource?
        /// The one-shot timer for the next gateway to ask again (`RouteFollower.nextResolveRetry`), and its instant.
        var resolveRetry: (source: SDEventSource, due: ContinuousClock.Instant)?
        /// The one-shot timer for the next route to expire (`RouteFollower.nextExpiry`), and its instant.
        var expiryTimer: (source: SDEventSource, due: ContinuousClock.Instant)?
        /// Asks the next slice of flows' queries on a later turn of the loop, after whatever became ready meanwhile
        /// (`RouteFollower.askNextSlice()`); made on first use.
        var sliceSource: SDEventSource?
        /// The flows' queries the last delivered batch said were waiting.
        var deliveredAwaiting: AwaitingQueries = []
        /// The version of the flows' query set last set, and the one the last delivered batch carried.
        var queriesVersion: UInt64 = 0
        var deliveredQueriesVersion: UInt64 = 0
        /// Where batches go: an AsyncStream's continuation, or a handler called on the loop.
        var delivery: (deliver: (KernelBatch) -> Void, finish: () -> Void)?
        var isStopped = false
        /// A resync that failed and waits for its retry; cleared by any resync that succeeds.
        var pendingResync: ResyncReason?
        var retryDelayMilliseconds = KernelWatcher.firstRetryDelayMilliseconds
    }
}
