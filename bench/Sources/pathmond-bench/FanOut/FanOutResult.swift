// SPDX-License-Identifier: Apache-2.0
/// What one kind's run measured, printed as a table: pathmond's subscribers beside the raw fan-out (the floor), the
/// raw netlink listener (the kernel's own latency), and GetPath beside GetPath when quiet and GetPath to an idle
/// pathmond while the raw fan-out runs (the floor for a third thread's call while the fan-out holds both cores).
struct FanOutResult {
    /// The raw fan-out's figures: its subscribers' arrivals and the raw daemon's own loop.
    struct Raw {
        var arrivals = FanOutTally()
        /// From recv returning to the last write(2) returning, per change.
        var writeLoops: [UInt64] = []
        /// The smallest and largest reply written, in bytes.
        var replySizes: ClosedRange<Int>?
        var failedWrites = 0
        var overflows = 0
        /// GetPath calls to pathmond, idle, while the raw fan-out ran: the floor for pathmond's GetPath meanwhile.
        var getPathMeanwhile: [UInt64] = []
        /// Measured in an earlier kind's run and reused here (1,000 distinct replies cost the same writes).
        var isReused = false
    }

    var kind: FanOutRun.Kind
    var subscribers: Int
    /// The client processes each side's subscribers were spread over (`WorkerSubscribers`).
    var processes = 1
    var pathmond = FanOutTally()
    var raw = Raw()
    var rawNetlink: [UInt64] = []
    /// WatchFlow only: the flows' route look-ups asked alone after each change (`FlowLookups`), and the replies
    /// that did not come.
    var lookups: [UInt64] = []
    var missingLookupReplies = 0

    /// The floor of a daemon that asks the kernel for each flow before telling it: the raw fan-out's last
    /// subscriber plus the look-ups, at one rank (nil without look-ups).
    func floorWithLookups(_ rank: Double) -> UInt64? {
        guard let raw = nearestRank(raw.arrivals.last, rank), let asked = nearestRank(lookups, rank) else { return nil }
        return raw + asked
    }
    var getPathDuringFanOut: [UInt64] = []
    var getPathQuiet: [UInt64] = []
    var getPathFailure: String?
    /// From the first subscriber's call to the last one's first value, in each process, added up (the processes
    /// subscribe one after another).
    var subscribeNanoseconds: UInt64 = 0
    /// pathmond's anonymous memory (RssAnon) grown by subscribing, per subscriber, in bytes: what an idle
    /// subscriber costs it (the kernel's socket buffers are not counted).
    var memoryPerSubscriber: Int?

    func table() -> FigureTable {
        let name = kind == .path ? "WatchPath" : "WatchFlow (distinct remote addresses)"
        var table = FigureTable(title: "\(subscribers) \(name) subscribers", referenceName: "reference")
        let (first, last, floor) = (pathmond.first, pathmond.last, raw.arrivals.last)
        table.addTime(
            "last subscriber, p50 (ref: raw fan-out)", nearestRank(last, 0.5), nearestRank(floor, 0.5))
        table.addTime(
            "last subscriber, p99 (ref: raw fan-out)", nearestRank(last, 0.99), nearestRank(floor, 0.99),
            goal: kind == .path ? "≤ 5 ms" : "≤ 10 ms")
        if !lookups.isEmpty {
            for rank in [0.5, 0.99] {
                table.addTime(
                    "last subscriber, p\(Int(rank * 100)) (ref: raw fan-out + the flows' look-ups, same rank)",
                    nearestRank(last, rank), floorWithLookups(rank))
            }
            table.addTime("  the flows' \(subscribers * 2) look-ups alone, p50", nil, nearestRank(lookups, 0.5))
        }
        table.addTime(
            "first subscriber, p50 (ref: raw fan-out)", nearestRank(first, 0.5),
            nearestRank(raw.arrivals.first, 0.5))
        table.addTime(
            "last subscriber, p50 (ref: raw netlink)", nearestRank(last, 0.5), nearestRank(rawNetlink, 0.5))
        table.addTime(
            "GetPath during fan-out, p50 (ref: quiet)", nearestRank(getPathDuringFanOut, 0.5),
            nearestRank(getPathQuiet, 0.5))
        table.addTime(
            "GetPath during fan-out, p99 (ref: quiet)", nearestRank(getPathDuringFanOut, 0.99),
            nearestRank(getPathQuiet, 0.99), goal: kind == .flow ? "≤ 1 ms" : "")
        for rank in [0.5, 0.99] {
            table.addTime(
                "GetPath during fan-out, p\(Int(rank * 100)) (ref: idle pathmond's, during the raw fan-out)",
                nearestRank(getPathDuringFanOut, rank), nearestRank(raw.getPathMeanwhile, rank))
        }
        table.note("pathmond: " + pathmond.summary)
        table.note(
            "subscribers: \(processes) client process\(processes == 1 ? "" : "es") per side; subscribing "
                + "\(subscribers), a process after another, each waiting for its first values, in "
                + formatDuration(subscribeNanoseconds))
        if let memoryPerSubscriber {
            table.note(
                "memory per idle subscriber (pathmond's RssAnon grown by subscribing): \(memoryPerSubscriber) bytes")
        }
        table.note(rawNote)
        if !lookups.isEmpty {
            table.note(
                "the flows' look-ups: each flow's two (from its local address, and without), 128 to a datagram, "
                    + "asked alone in pathmond's namespace after each change; replies missing: \(missingLookupReplies)")
        }
        table.note(
            "GetPath calls: \(getPathDuringFanOut.count) during fan-out, \(getPathQuiet.count) quiet, "
                + "\(raw.getPathMeanwhile.count) during the raw fan-out"
                + (getPathFailure.map { ", GetPath failure: \($0)" } ?? ""))
        return table
    }

    private var rawNote: String {
        let loop = [0.5, 0.99].map { nearestRank(raw.writeLoops, $0).map(formatDuration) ?? "-" }
        let size =
            raw.replySizes.map { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" } ?? "-"
        return "raw fan-out\(raw.isReused ? " (reused from the run above)" : ""): \(subscribers) Unix connections, "
            + "\(size)-byte replies (pathmond's own), recv → last write(2) p50 \(loop[0]), p99 \(loop[1]); "
            + raw.arrivals.summary
            + (raw.failedWrites > 0 ? ", failed writes: \(raw.failedWrites)" : "")
            + (raw.overflows > 0 ? ", overflows: \(raw.overflows)" : "")
    }
}
