// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

#if canImport(Glibc)
    import Glibc
#endif

/// `pathmond-bench flips`: what one isolated change costs, as a host sees it (issue 41). A route or link flip after a
/// quiet gap (300 ms by default: caches and predictors cold, idle timers included), with one WatchPath subscriber
/// reading every update; pathmond's CPU per flip beside a raw listener's on the same flips, and, with pathmond under
/// callgrind, the whole process's instructions per flip (every thread: history, log and timers included).
struct Flips: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flips",
        abstract: "CPU and instructions per isolated route or link flip, beside a raw listener; --interfaces N scales.",
        discussion: """
            route: `default via 10.77.0.2 dev veth0 metric 50` added and deleted (the only default route: the path \
            is satisfied, then not). link: veth0's carrier taken away and given back (its peer set down and up), as a \
            cable pulled, with the gateway's route in place (the path is satisfied, then not). --interfaces N: N \
            interfaces in pathmond's namespace (lo, veth0 and veth pairs, up, each end with a /32, as on a \
            container host), made before the flips and settled. --callgrind-out FILE: \
            pathmond runs under `valgrind --tool=callgrind --callgrind-out-file=FILE` (bench/instructions does \
            this); the counters are zeroed before the first flip and dumped after the last (FILE.1).
            """
    )

    enum Kind: String, ExpressibleByArgument, CaseIterable { case route, link }

    @OptionGroup var daemon: DaemonOptions

    @Option(help: "What flips: route or link.")
    var kind = Kind.route

    @Option(help: "Flips measured (an even number: the path ends as it started).")
    var count = 40

    @Option(help: "Flips made first and not measured (the first run of each code path costs more, once).")
    var warmup = 4

    @Option(name: .customLong("gap-ms"), help: "Quiet time before each flip, in milliseconds (0: back to back).")
    var gapMilliseconds = 300

    @Option(help: "Interfaces in pathmond's namespace (2: lo and veth0).")
    var interfaces = 2

    @Option(name: .customLong("callgrind-out"), help: "pathmond runs under callgrind writing here: count instructions.")
    var callgrindOut: String?

    func validate() throws {
        guard count >= 2 else { throw ValidationError("--count must be at least 2.") }
        guard warmup >= 0 else { throw ValidationError("--warmup must not be negative.") }
        guard gapMilliseconds >= 0 else { throw ValidationError("--gap-ms must not be negative.") }
        guard interfaces >= 2, interfaces <= 4000 else { throw ValidationError("--interfaces must be 2...4000.") }
    }

    func run() throws {
        try BenchRun.with(daemon) { try measure(in: $0) }
    }

    private func measure(in bench: BenchRun) throws {
        let namespace = bench.namespace
        // A link flip takes the path's one uplink away: its gateway's route is there from the start.
        try FlipTopology.prepare(namespace, extraInterfaces: interfaces - 2, withRoute: kind == .link)
        let raw = try Child(namespace.exec + [DaemonOptions.sibling("pathmond-bench"), "raw-listen"], output: .pipe)
        defer { raw.stop() }
        usleep(500_000)
        let pids = [bench.pathmond.pid, raw.pid]
        let probe = StormProbe(pids: pids, listeners: NetlinkSockets(processes: pids, namespaceProcess: pids[0]))
        let flips = count + count % 2
        // A link flip takes veth0's carrier away from the peer's side, as a pulled cable does.
        let writer =
            try kind == .route
            ? bench.requestWriter() : namespace.entered(peer: true) { () throws(BenchError) in try RequestWriter() }
        let subscriber = try VarlinkSocket(path: bench.pathmond.socketPath)
        _ = try subscriber.call(VarlinkSocket.watchPathCall)
        var missed = 0
        var waits: [UInt64] = []
        /// One flip after the quiet gap: the route is added first (there is none at the start); the link is up.
        func flip(_ index: Int) throws(BenchError) {
            if gapMilliseconds > 0 { usleep(UInt32(gapMilliseconds) * 1000) }
            let request =
                kind == .route
                ? FlipTopology.gatewayRoute(add: index % 2 == 0) : .setLink(index: 20, up: index % 2 == 1)
            let message = writer.prepare(request)
            let start = monotonicNanoseconds()
            try writer.send(message)
            if subscriber.receive(timeoutMilliseconds: 5000) == nil {
                missed += 1
            } else {
                waits.append(monotonicNanoseconds() - start)
            }
            try writer.awaitAcknowledgement(for: request)
        }
        for index in 0..<(warmup + warmup % 2) { try flip(index) }
        try probe.settle()
        (missed, waits) = (0, [])

        let callgrind = callgrindOut.map { Callgrind(pid: bench.pathmond.pid, outFile: $0) }
        try callgrind?.zero()
        let before = try probe.snapshots()
        for index in 0..<flips { try flip(index) }
        try probe.settle()
        let after = try probe.snapshots()
        let counted = try callgrind?.dump()
        raw.signal(SIGTERM)

        let cpu = probe.perEvent(before, after, flips)
        let what = kind == .route ? "route flips (default via a gateway)" : "link flips (veth0's carrier)"
        var table = FigureTable(
            title: "\(flips) \(what), \(gapMilliseconds) ms quiet before each, \(interfaces) interfaces, "
                + "1 WatchPath subscriber", referenceName: "raw listener")
        table.addTime("CPU per flip", cpu[0], cpu[1])
        // Thread by thread: its CPU and how often it slept (voluntary switches; each sleep that ends before the
        // next flip is a wake-up, which on this VM costs 30-50 µs of CPU). The main thread's reference is the raw
        // listener's one thread (whose sleeps are not comparable: it also wakes every 100 ms).
        let threads = ProcessDelta.byThread(from: before[pids[0]]!, to: after[pids[0]]!, main: Int(pids[0]))
        for thread in threads where thread.cpuNanoseconds > 0 {
            let used = formatDuration(thread.cpuNanoseconds / UInt64(flips))
            table.add(
                "– \(thread.isMain ? "main thread" : "thread") \(thread.name): CPU, sleeps per flip",
                "\(used), \(Self.perFlip(thread.sleeps, flips)) sleeps", thread.isMain ? formatDuration(cpu[1]) : "")
        }
        if let wait = nearestRank(waits.sorted(), 0.5) {
            table.addTime("change sent → subscriber's update, p50", wait, nil)
        }
        if let counted {
            let perFlip = counted.instructions / UInt64(flips)
            table.add("instructions per flip (whole process)", "\(perFlip)", "", ratio: nil, goal: "≤ 60000")
        }
        if let footprint = counted?.footprint {
            // Every flip of a kind runs the same code: the lines of all of them are what one pair of flips touches.
            let objects = footprint.linesByObject.sorted { $0.value > $1.value }.prefix(3)
            table.add(
                "code executed, 64-byte lines (all flips)", "\(footprint.lines) (\(footprint.bytes / 1024) KB)", "",
                ratio: nil, goal: "")
            table.note(
                "code lines by object: "
                    + objects.map { "\($0.key.split(separator: "/").last ?? "") \($0.value)" }.joined(separator: ", "))
        }
        if missed > 0 { table.note("the subscriber missed \(missed) updates (5 s each)") }
        if callgrind != nil { table.note("pathmond ran under callgrind: its CPU time is valgrind's, not its own") }
        print(table.render())
    }
}

extension Flips {
    /// A count per flip with two decimals: "1.07".
    static func perFlip(_ count: UInt64, _ flips: Int) -> String {
        let hundredths = (count * 100 + UInt64(flips) / 2) / UInt64(flips)
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

/// Counting a running callgrind's instructions between two moments, through `callgrind_control` (vgdb).
struct Callgrind {
    let pid: pid_t
    let outFile: String

    func zero() throws(BenchError) {
        try Child.run(["callgrind_control", "--zero", "\(pid)"])
    }

    /// Dumps what was counted since `zero` (callgrind writes the first dump to FILE.1) and reads its total, and
    /// the code executed when callgrind was told to dump instructions' addresses (`--dump-instr=yes`).
    func dump() throws(BenchError) -> (instructions: UInt64, footprint: CodeFootprint?) {
        try Child.run(["callgrind_control", "--dump", "\(pid)"])
        let text = readFile(outFile + ".1")
        for line in text.split(separator: "\n") where line.hasPrefix("summary: ") {
            if let total = UInt64(line.dropFirst("summary: ".count)) {
                return (total, CodeFootprint(callgrindDump: Substring(text)))
            }
        }
        throw .setup("no summary line in \(outFile).1")
    }
}
