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
        abstract:
            "CPU and instructions per isolated route or link flip, or per background event, beside a raw listener.",
        discussion: """
            route: `default via 10.77.0.2 dev veth0 metric 50` added and deleted (the only default route: the path \
            is satisfied, then not). link: veth0's carrier taken away and given back (its peer set down and up), as a \
            cable pulled, with the gateway's route in place (the path is satisfied, then not). What a host sends all \
            day, which must change nothing (the subscriber must hear nothing), with the gateway's route in place: \
            host-neighbour: a LAN host's entry (10.77.0.9) REACHABLE, then STALE; gateway-neighbour: the gateway's \
            entry, its link-layer address as it is, REACHABLE, then STALE; renewal: veth0's 10.77.0.1/24 renewed \
            with new lifetimes, as a DHCP client or a router advertisement does. --interfaces N: N \
            interfaces in pathmond's namespace (lo, veth0 and veth pairs, up, each end with a /32, as on a \
            container host), made before the flips and settled. --callgrind-out FILE: \
            pathmond runs under `valgrind --tool=callgrind --callgrind-out-file=FILE` (bench/instructions does \
            this); the counters are zeroed before the first flip and dumped after the last (FILE.1).
            """
    )

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case route, link
        case hostNeighbour = "host-neighbour", gatewayNeighbour = "gateway-neighbour", renewal

        /// Whether each event changes the path, which the subscriber then hears; the others are background churn.
        var changesPath: Bool { self == .route || self == .link }
    }

    @OptionGroup var daemon: DaemonOptions

    @Option(help: "What flips: route or link; or a background event: host-neighbour, gateway-neighbour or renewal.")
    var kind = Kind.route

    @Option(help: "Flips measured (an even number: the path ends as it started).")
    var count = 40

    @Option(help: "Flips made first and not measured (the first run of each code path costs more, once).")
    var warmup = 4

    @Option(name: .customLong("gap-ms"), help: "Quiet time before each flip, in milliseconds (0: back to back).")
    var gapMilliseconds = 300

    @Option(help: "Interfaces in pathmond's namespace (2: lo and veth0).")
    var interfaces = 2

    @Option(help: "WatchFlow subscribers beside the WatchPath one, each to a remote of its own (fan-out's flows).")
    var flows = 0

    @Option(name: .customLong("callgrind-out"), help: "pathmond runs under callgrind writing here: count instructions.")
    var callgrindOut: String?

    func validate() throws {
        guard count >= 2 else { throw ValidationError("--count must be at least 2.") }
        guard warmup >= 0 else { throw ValidationError("--warmup must not be negative.") }
        guard gapMilliseconds >= 0 else { throw ValidationError("--gap-ms must not be negative.") }
        guard interfaces >= 2, interfaces <= 4000 else { throw ValidationError("--interfaces must be 2...4000.") }
        guard flows >= 0, flows <= 10_000 else { throw ValidationError("--flows must be 0...10000.") }
    }

    func run() throws {
        try BenchRun.with(daemon) { try measure(in: $0) }
    }

    private func measure(in bench: BenchRun) throws {
        let namespace = bench.namespace
        // A link flip takes the path's one uplink away: its gateway's route is there from the start.
        try FlipTopology.prepare(namespace, extraInterfaces: interfaces - 2, withRoute: kind != .route)
        let neighbours = kind == .hostNeighbour || kind == .gatewayNeighbour ? ["--neighbours"] : []
        let raw = try Child(
            namespace.exec + [DaemonOptions.sibling("pathmond-bench"), "raw-listen"] + neighbours, output: .pipe)
        defer { raw.stop() }
        usleep(500_000)
        let pids = [bench.pathmond.pid, raw.pid]
        let probe = StormProbe(pids: pids, listeners: NetlinkSockets(processes: pids, namespaceProcess: pids[0]))
        let flips = count + count % 2
        // A link flip takes veth0's carrier away from the peer's side, as a pulled cable does.
        let writer =
            try kind != .link
            ? bench.requestWriter() : namespace.entered(peer: true) { () throws(BenchError) in try RequestWriter() }
        let subscriber = try VarlinkSocket(path: bench.pathmond.socketPath)
        _ = try subscriber.call(VarlinkSocket.watchPathCall)
        if flows > 0 { _ = raiseOpenFileLimit() }
        // Each flow on a connection of its own, its first status read: asked of the kernel, as a client's would be.
        var watchers: [VarlinkSocket] = []
        for index in 0..<flows {
            let watcher = try VarlinkSocket(path: bench.pathmond.socketPath)
            _ = try watcher.call(FanOutRun.flowCall(index))
            watchers.append(watcher)
        }
        var missed = 0
        var waits: [UInt64] = []
        /// One flip after the quiet gap: the route is added first (there is none at the start); the link is up.
        func flip(_ index: Int) throws(BenchError) {
            if gapMilliseconds > 0 { usleep(UInt32(gapMilliseconds) * 1000) }
            let request = FlipTopology.request(kind, index)
            let message = writer.prepare(request)
            let start = monotonicNanoseconds()
            try writer.send(message)
            guard kind.changesPath else { return try writer.awaitAcknowledgement(for: request) }
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
        // Background events: whatever the set-up made the subscriber hear is read now, so that only theirs count.
        if !kind.changesPath {
            _ = Self.updates(of: subscriber)
            for watcher in watchers { watcher.readAvailable() }
        }

        let callgrind = callgrindOut.map { Callgrind(pid: bench.pathmond.pid, outFile: $0) }
        try callgrind?.zero()
        let before = try probe.snapshots()
        for index in 0..<flips { try flip(index) }
        try probe.settle()
        let after = try probe.snapshots()
        let counted = try callgrind?.dump()
        raw.signal(SIGTERM)
        let heard = kind.changesPath ? 0 : Self.updates(of: subscriber)
        // After `updates` waited: any flow's update is there by now.
        let flowsHeard = kind.changesPath ? 0 : watchers.filter { $0.readAvailable() > 0 }.count

        let cpu = probe.perEvent(before, after, flips)
        let what =
            switch kind {
            case .route: "route flips (default via a gateway)"
            case .link: "link flips (veth0's carrier)"
            case .hostNeighbour: "events: a LAN host's neighbour entry, REACHABLE then STALE"
            case .gatewayNeighbour: "events: the gateway's neighbour entry as it is, REACHABLE then STALE"
            case .renewal: "events: veth0's address renewed with new lifetimes"
            }
        var table = FigureTable(
            title: "\(flips) \(what), \(gapMilliseconds) ms quiet before each, \(interfaces) interfaces, "
                + "1 WatchPath subscriber" + (flows > 0 ? " and \(flows) WatchFlow" : ""), referenceName: "raw listener"
        )
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
        if !kind.changesPath {
            table.add("updates the subscriber heard (none expected)", "\(heard)", "", ratio: nil, goal: "0")
            if flows > 0 {
                table.add("flows that heard an update (none expected)", "\(flowsHeard)", "", ratio: nil, goal: "0")
            }
        }
        if callgrind != nil { table.note("pathmond ran under callgrind: its CPU time is valgrind's, not its own") }
        print(table.render())
    }
}

extension Flips {
    /// The updates a subscriber has heard and not read, read now: each within 200 ms of the last.
    static func updates(of subscriber: VarlinkSocket) -> Int {
        var count = 0
        while subscriber.receive(timeoutMilliseconds: 200) != nil { count += 1 }
        return count
    }

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
