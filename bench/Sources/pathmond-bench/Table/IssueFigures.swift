// SPDX-License-Identifier: Apache-2.0
/// What `table` measured, and issue 25's table built from it: one row per figure of the issue, pathmond beside the
/// reference of the same run, their ratio and the issue's goal.
struct IssueFigures {
    var subscribers: Int
    var latency: Report?
    var flips: PathFlips.Result?
    var watchPath: FanOutResult?
    var watchFlow: FanOutResult?
    var fanOutOverflows = 0
    var sizes: FileSizes?
    /// /proc/loadavg before and after the run.
    var load: (before: String, after: String)?

    init(subscribers: Int) {
        self.subscribers = subscribers
    }

    func table() -> FigureTable {
        var table = FigureTable(title: "issue 25's table, measured in one run", referenceName: "reference")
        addLatency(to: &table)
        addFanOut(to: &table)
        if let flips {
            table.addTime(
                "CPU per path flip (ref: raw listener process)", flips.cpuPerFlip[0], flips.cpuPerFlip[1],
                goal: "≤ 3x")
            table.addTime(
                "  the same (ref: raw listener making pathmond's system calls, a lower bound)", flips.cpuPerFlip[0],
                flips.cpuPerFlip[2])
            table.addTime(
                "  that lower bound (ref: raw listener process)", flips.cpuPerFlip[2], flips.cpuPerFlip[1])
        }
        addSizes(to: &table)
        addNotes(to: &table)
        return table
    }

    private func addLatency(to table: inout FigureTable) {
        guard let latency else { return }
        let two = latency.kinds.first { $0.kind == ChangeKind.uplink.rawValue }
        let one = latency.kinds.first { $0.kind == ChangeKind.route.rawValue }
        if let two {
            // The goal is absolute once the raw listener's p50 of this run is known: 2 × raw + 0.1 ms.
            let bound = two.raw.p50Micros.map { formatDuration(nanoseconds($0 * 2 + 100)) } ?? "-"
            table.addTime(
                "second uplink's default route added/deleted → WatchPath subscriber, p50 (ref: raw netlink)",
                nanoseconds(two.wire.p50Micros), nanoseconds(two.raw.p50Micros),
                goal: "≤ 2 × raw + 0.1 ms = \(bound)")
            table.addTime("  the same, p99", nanoseconds(two.wire.p99Micros), nanoseconds(two.raw.p99Micros))
            table.addTime(
                "  the same through the client library, p50", nanoseconds(two.subscriber.p50Micros),
                nanoseconds(two.raw.p50Micros))
        }
        if let one {
            table.addTime(
                "one uplink's default route deleted/re-added → subscriber, p50 (ref: raw netlink)",
                nanoseconds(one.wire.p50Micros), nanoseconds(one.raw.p50Micros), goal: "keep")
            table.addTime(
                "  the same, p99", nanoseconds(one.wire.p99Micros), nanoseconds(one.raw.p99Micros), goal: "keep")
            table.addTime(
                "  the same through the client library, p50", nanoseconds(one.subscriber.p50Micros),
                nanoseconds(one.raw.p50Micros))
        }
    }

    private func addFanOut(to table: inout FigureTable) {
        if let watchPath {
            table.addTime(
                "\(subscribers) WatchPath subscribers, last one, p99 (ref: raw fan-out)",
                nearestRank(watchPath.pathmond.last, 0.99), nearestRank(watchPath.raw.arrivals.last, 0.99),
                goal: "≤ 1.3x")
        }
        if let watchFlow {
            table.addTime(
                "\(subscribers) distinct WatchFlow subscribers, last one, p99 (ref: raw fan-out)",
                nearestRank(watchFlow.pathmond.last, 0.99), nearestRank(watchFlow.raw.arrivals.last, 0.99),
                goal: "≤ 2x")
            table.addTime(
                "  the same (ref: raw fan-out + the flows' \(subscribers * 2) route look-ups, the kernel's floor)",
                nearestRank(watchFlow.pathmond.last, 0.99), watchFlow.floorWithLookups(0.99))
            table.addTime(
                "  WatchFlow's first subscriber's wait, p50 (ref: raw fan-out's first)",
                nearestRank(watchFlow.pathmond.first, 0.5), nearestRank(watchFlow.raw.arrivals.first, 0.5),
                goal: "≤ 1 ms")
            table.addTime(
                "  WatchFlow's first subscriber's wait, p99 (ref: raw fan-out's first)",
                nearestRank(watchFlow.pathmond.first, 0.99), nearestRank(watchFlow.raw.arrivals.first, 0.99),
                goal: "≤ 1 ms")
        }
    }

    private func addSizes(to table: inout FigureTable) {
        guard let sizes else { return }
        table.add(
            "stripped pathmond (ref: the unstripped binary)", sizes.stripped.map(formatFileSize) ?? "-",
            sizes.unstripped.map(formatFileSize) ?? "-",
            ratio: figureRatio(sizes.stripped.map(Double.init), sizes.unstripped.map(Double.init)), goal: "≤ 15 MB")
        table.add(".deb", sizes.deb.map(formatFileSize) ?? "- (no --deb)", "", goal: "≤ 8 MB")
    }

    private func addNotes(to table: inout FigureTable) {
        if let latency {
            table.note(
                "latency: \(latency.changesPerKind) changes per kind after \(latency.warmup) warm-up, "
                    + "\(latency.pauseMicros) µs pause before each; subscriber: a WatchPath client reading the socket "
                    + "(the client library's, NetworkPathMonitor on a DispatchQueue, where named); "
                    + "misses (raw/subscriber/library): "
                    + latency.kinds.map {
                        "\($0.kind) \($0.raw.misses)/\($0.wire.misses)/\($0.subscriber.misses)"
                    }.joined(
                        separator: ", ")
                    + "; extra updates \(latency.extraUpdates), raw overflows \(latency.rawOverflows)")
        }
        if let flips {
            table.note(
                "CPU: /proc/PID/task/*/schedstat (else stat utime+stime) of pathmond and `pathmond-bench raw-listen` "
                    + "over the flips, 1 WatchPath subscriber; updates missed: \(flips.missed); pathmond's system "
                    + "calls: the 4 internet probes asked in one datagram, a 623-byte update and a 101-byte line "
                    + "written to /dev/null")
        }
        for result in [watchPath, watchFlow].compactMap({ $0 }) {
            table.note("\(result.kind == .path ? "WatchPath" : "WatchFlow"): " + result.pathmond.summary)
        }
        if let watchPath { table.note("raw fan-out: " + watchPath.raw.arrivals.summary) }
        if fanOutOverflows > 0 { table.note("fan-out's raw netlink listener overflowed \(fanOutOverflows) times") }
        if let sizes { table.note(sizes.note) }
        if let load { table.note("load average before: \(load.before), after: \(load.after)") }
    }
}

/// Microseconds (as the latency report keeps them) in nanoseconds, for `FigureTable.addTime`.
private func nanoseconds(_ micros: Double?) -> UInt64? {
    micros.map { UInt64(($0 * 1000).rounded()) }
}

private func nanoseconds(_ micros: Double) -> UInt64 {
    UInt64((micros * 1000).rounded())
}
