// SPDX-License-Identifier: Apache-2.0
import PathModel

/// The events of one drained read of the notification socket, or one full dump.
public struct KernelBatch: Sendable, Hashable {
    /// The events, in the order the kernel sent them. A resync batch holds exactly one `.snapshot`.
    public var events: [KernelEvent]
    /// Set when the batch is a full dump that replaces everything known, with the reason for it.
    public var resync: ResyncReason?
    /// Flows' route queries the change asked that wait for a later slice (`FlowSlices`): their answers in the
    /// model are the last ones, from before the change, until a later batch brings them.
    public var awaiting: AwaitingQueries
    /// The version of the flows' query set (`KernelWatcher.setFlowQueries`) the model has asked by this batch:
    /// every query of that set has been asked once (or waits in `awaiting`), the internet's probes first.
    public var queriesVersion: UInt64
    /// The route queries this batch asked (their answers are in its events, changed or not), so that a consumer
    /// re-derives only what depends on them when nothing else changed; nil when unknown (a dump).
    public var answered: [RouteQuery]?

    public init(
        events: [KernelEvent], resync: ResyncReason? = nil, awaiting: AwaitingQueries = [],
        queriesVersion: UInt64 = 0, answered: [RouteQuery]? = nil
    ) {
        self.events = events
        self.resync = resync
        self.awaiting = awaiting
        self.queriesVersion = queriesVersion
        self.answered = answered
    }
}

/// Why a watcher dumped the kernel's state again.
public enum ResyncReason: Sendable, Hashable {
    /// The first dump, right after subscribing.
    case initial
    /// Notifications were lost (ENOBUFS, which libnl reports as -NLE_NOMEM, or another receive failure).
    case overflow
    /// Notifications were lost, and the dump itself was interrupted by concurrent changes (NLM_F_DUMP_INTR) at
    /// least once before a consistent one was read.
    case dumpInterrupted
}
