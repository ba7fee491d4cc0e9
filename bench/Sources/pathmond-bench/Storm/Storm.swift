// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

#if canImport(Glibc)
    import Glibc
#endif

/// `pathmond-bench storm`: CPU per route event (each alone) against a raw listener, then CPU over a storm of route
/// additions and deletions against `ip monitor route`, and pathmond's memory with 100 routes against with the storm's
/// routes installed (issue 11). All three listeners hear the same events in one run.
struct Storm: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storm",
        abstract: "CPU per route event and in a 1,000,000-route storm, beside a raw listener and `ip monitor route`.",
        discussion: """
            Creates its own network namespaces and starts pathmond, `ip monitor route` and a raw netlink listener \
            (pathmond-bench raw-listen) in them (root needed). The storm's writer waits while any listener has more \
            than 256 KiB unread, so that none loses notifications: the storm runs as fast as the slowest listener.
            """
    )

    @OptionGroup var daemon: DaemonOptions

    @Option(help: "Routes added, then deleted, in the storm.")
    var routes = 1_000_000

    @Option(help: "Routes per send(2) in the storm: 256 makes bursts; 1 sends them one by one, as `ip -batch` does.")
    var chunk = 1

    @Option(help: "The storm's rate in routes per second (0: as fast as the slowest listener keeps up).")
    var rate = 50000

    @Option(help: "Route events measured one at a time, per kind.")
    var events = 4000

    @Option(name: .customLong("gap-us"), help: "Pause after each single event, so that each is handled alone.")
    var gapMicroseconds: UInt32 = 1000

    @Option(
        help: """
            WatchFlow subscribers (fan-out's distinct flows) watching while the /32 events are measured: a route that \
            covers none of their queries should cost no more than without them.
            """)
    var flows = 0

    func validate() throws {
        guard routes > 0, routes <= 4_000_000 else { throw ValidationError("--routes must be within 1...4000000.") }
        guard chunk > 0, rate >= 0 else { throw ValidationError("--chunk must be positive, --rate not negative.") }
        guard events >= 2 else { throw ValidationError("--events must be at least 2.") }
        guard flows >= 0 else { throw ValidationError("--flows must not be negative.") }
    }

    func run() throws {
        try BenchRun.with(daemon) { try measure(in: $0) }
    }

    private func measure(in bench: BenchRun) throws {
        let namespace = bench.namespace
        let pathmond = bench.pathmond
        // To /dev/null: the cheapest output, so the reference is not inflated by a reader. Its socket's drop count
        // (below) says whether it heard every event.
        let monitor = try Child(namespace.exec + ["ip", "monitor", "route"], output: .null)
        defer { monitor.stop() }
        let raw = try Child(namespace.exec + [DaemonOptions.sibling("pathmond-bench"), "raw-listen"], output: .pipe)
        defer { raw.stop() }
        usleep(500_000)
        let pids = [pathmond.pid, monitor.pid, raw.pid]
        let listeners = NetlinkSockets(processes: pids, namespaceProcess: pathmond.pid)
        let sockets = listeners.read()
        guard pids.allSatisfy({ sockets[$0] != nil }) else {
            throw BenchError.setup(
                "could not find every listener's netlink socket in /proc/\(pathmond.pid)/net/netlink")
        }
        let storm = try RouteStorm(in: namespace)
        let probe = StormProbe(pids: pids, listeners: listeners)

        try storm.apply(add: true, base: 0x0a7f_0000, count: 100, listeners: listeners)
        try probe.settle()
        let hundred = try probe.snapshot(pathmond.pid)

        print(
            "pathmond-bench storm: \(events) single route events per kind (\(gapMicroseconds) µs apart), then "
                + "\(routes) routes added and deleted")
        let single = try measureSingleEvents(storm: storm, probe: probe, bench: bench)

        storm.chunk = chunk
        storm.rate = rate
        let before = try probe.snapshots()
        let start = monotonicNanoseconds()
        try storm.apply(add: true, base: 0x0a80_0000, count: routes, listeners: listeners)
        try probe.settle()
        let addSeconds = Double(monotonicNanoseconds() - start) / 1e9
        let full = try probe.snapshot(pathmond.pid)
        try storm.apply(add: false, base: 0x0a80_0000, count: routes, listeners: listeners)
        try probe.settle()
        let seconds = Double(monotonicNanoseconds() - start) / 1e9
        let after = try probe.snapshots()
        let drops = listeners.read()
        raw.signal(SIGTERM)
        let rawOutput = raw.readAllOutput().split(separator: "\n").joined(separator: " ")

        let cpu = pids.map { ProcessDelta(from: before[$0]!, to: after[$0]!).cpuNanoseconds }
        let stormEvents = UInt64(2 * routes)
        var table = FigureTable(
            title: "storm: \(routes) routes added then deleted (\(stormEvents) events, \(rounded(seconds, 1)) s; "
                + "adding took \(rounded(addSeconds, 1)) s; \(chunk) per send, "
                + (rate > 0 ? "at most \(rate) per second)" : "as fast as the listeners keep up)"),
            referenceName: "ip monitor route")
        table.addTime("CPU over the storm", cpu[0], cpu[1], goal: "≤ 1.2x")
        table.addTime("CPU per storm event", cpu[0] / stormEvents, cpu[1] / stormEvents)
        table.addTime("  raw listener (second reference), per event", nil, cpu[2] / stormEvents)
        table.add(
            "RSS with \(routes) routes (ref: with 100)", formatMegabytes(kibibytes: full.residentKiB),
            formatMegabytes(kibibytes: hundred.residentKiB),
            ratio: figureRatio(Double(full.residentKiB), Double(hundred.residentKiB)), goal: "≤ 1.2x")
        table.add("peak RSS (VmHWM) over the run", formatMegabytes(kibibytes: full.peakResidentKiB), "")
        table.note(
            "events seen by the raw listener (whole run): \(rawOutput); "
                + "route errors: \(storm.errors)\(storm.firstError.map { " (first: \(String(cString: strerror($0))))" } ?? "")"
        )
        table.note(
            "notifications dropped (/proc/net/netlink Drops): pathmond \(drops[pids[0]]?.drops ?? -1), "
                + "ip monitor \(drops[pids[1]]?.drops ?? -1), raw listener \(drops[pids[2]]?.drops ?? -1)")
        print("")
        print(single.render())
        print("")
        print(table.render())
    }

    /// Single events, each alone: a /32 route that changes no path, then the default route, whose every change
    /// flips the path for one WatchPath subscriber.
    private func measureSingleEvents(
        storm: RouteStorm, probe: StormProbe, bench: BenchRun
    ) throws(BenchError) -> FigureTable {
        var table = FigureTable(
            title: "CPU per route event, each alone (\(events) per kind)", referenceName: "raw listener")
        let count = events + events % 2

        var hostRoutes = "/32 route added or deleted (no path change)"
        do {
            // Subscribed for the /32 events alone, and gone before the flips, which would fan out to them.
            let watchers =
                flows > 0
                ? try SubscriberSet(
                    socketPath: bench.pathmond.socketPath, requests: (0..<flows).map(FanOutRun.flowCall))
                : nil
            defer { watchers?.stop() }
            if flows > 0 { hostRoutes += ", \(flows) flows watched" }
            try probe.settle()
            let before = try probe.snapshots()
            for index in 0..<count {
                try storm.sendOne(add: index % 2 == 0, address: [10, 126, 0, 1])
                usleep(gapMicroseconds)
            }
            try probe.settle()
            let after = try probe.snapshots()
            addPerEvent(&table, hostRoutes, probe.perEvent(before, after, count))
        }
        try probe.settle()

        let flips = try PathFlips(count: count, gapMicroseconds: gapMicroseconds).measure(in: bench, probe: probe)
        addPerEvent(&table, "default route (path flips, 1 WatchPath subscriber)", flips.cpuPerFlip)
        if flips.missed > 0 { table.note("the subscriber missed \(flips.missed) updates (2 s each)") }
        return table
    }

    /// pathmond's CPU per event beside the raw listener's (pids[2]), and `ip monitor route`'s (pids[1]) below.
    private func addPerEvent(_ table: inout FigureTable, _ name: String, _ cpu: [UInt64]) {
        table.addTime(name, cpu[0], cpu[2], goal: "≤ 3x")
        table.addTime("  ip monitor route, same events", nil, cpu[1])
    }
}

/// Snapshots of the three listeners, and waiting until they are done with what was sent.
struct StormProbe {
    let pids: [pid_t]
    let listeners: NetlinkSockets

    func snapshot(_ pid: pid_t) throws(BenchError) -> ProcessSnapshot {
        guard let snapshot = ProcessSnapshot(pid: pid) else { throw .setup("process \(pid) is gone") }
        return snapshot
    }

    func snapshots() throws(BenchError) -> [pid_t: ProcessSnapshot] {
        var snapshots: [pid_t: ProcessSnapshot] = [:]
        for pid in pids { snapshots[pid] = try snapshot(pid) }
        return snapshots
    }

    /// Each process's CPU time between two snapshots divided by `count`, in the order of `pids`.
    func perEvent(_ before: [pid_t: ProcessSnapshot], _ after: [pid_t: ProcessSnapshot], _ count: Int) -> [UInt64] {
        pids.map { ProcessDelta(from: before[$0]!, to: after[$0]!).cpuNanoseconds / UInt64(count) }
    }

    /// Waits until no listener has anything queued and every listener's CPU time stood still for 300 ms.
    func settle() throws(BenchError) {
        let deadline = monotonicNanoseconds() + 300_000_000_000
        var previous = try snapshots().mapValues(\.cpuTicks)
        var quiet = 0
        while monotonicNanoseconds() < deadline {
            usleep(100_000)
            let ticks = try snapshots().mapValues(\.cpuTicks)
            let queued = listeners.read().values.contains { $0.queuedBytes > 0 }
            quiet = !queued && ticks == previous ? quiet + 1 : 0
            if quiet >= 3 { return }
            previous = ticks
        }
        throw .setup("the listeners were still busy 300 s after the last change")
    }
}
