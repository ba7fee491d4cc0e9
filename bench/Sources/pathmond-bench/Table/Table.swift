// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

#if canImport(Glibc)
    import Glibc
#endif

/// `pathmond-bench table`: every row of issue 25's table, each beside the reference measured in the same run, with
/// their ratio and the issue's goal. It runs the parts the other benches measure (latency with one and two uplinks,
/// fan-out, CPU per path flip) one after the other against one pathmond, then reads the binary's and the package's
/// sizes. It prints; it never asserts.
struct Table: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "table",
        abstract: "Every row of issue 25's table, beside its reference, in one run.",
        discussion: """
            Creates its own network namespaces (and, for the two-uplink latency only, a second uplink) and starts \
            pathmond in them (root needed). In order: latency (one uplink's default route deleted and re-added; a \
            second uplink's default route, at a lower metric, added and deleted) for a client-library subscriber and \
            a raw netlink listener; CPU per path flip for pathmond and a raw listener process; 1,000 WatchPath, then \
            1,000 distinct WatchFlow subscribers beside the raw fan-out; then the stripped pathmond's size (stripped \
            here with strip(1) unless --stripped names one) and the .deb's (with --deb).
            """
    )

    @OptionGroup var daemon: DaemonOptions

    @Option(name: .customLong("latency-count"), help: "Measured changes per latency kind (one and two uplinks).")
    var latencyCount = 200

    @Option(
        name: .customLong("latency-pause-us"),
        help: "Quiet time before each latency change, in microseconds (default 20 ms: isolated; 0: back to back).")
    var latencyPauseMicroseconds: UInt32 = 20000

    @Option(help: "Path flips whose CPU time is measured.")
    var flips = 2000

    @Option(name: .customLong("flip-gap-us"), help: "Pause after each path flip, so that each is handled alone.")
    var flipGapMicroseconds: UInt32 = 1000

    @Option(help: "Subscribers per fan-out kind.")
    var subscribers = 1000

    @Option(name: .customLong("fan-out-count"), help: "Measured route changes per fan-out kind (after 4 unmeasured).")
    var fanOutCount = 100

    @Option(help: "A stripped pathmond to size (default: the measured binary, stripped here with strip -o).")
    var stripped: String?

    @Option(help: "The .deb to size (none by default; scripts/package makes one).")
    var deb: String?

    @Flag(help: "Also print each part's own table as it finishes.")
    var verbose = false

    func validate() throws {
        guard latencyCount > 0, flips >= 2, subscribers > 0, fanOutCount > 0 else {
            throw ValidationError("--latency-count, --subscribers and --fan-out-count must be positive, --flips ≥ 2.")
        }
    }

    func run() throws {
        let limit = raiseOpenFileLimit()
        guard limit > subscribers + 64 else {
            throw ValidationError("the open-file limit (\(limit)) is too low for \(subscribers) subscribers.")
        }
        let loadBefore = loadAverage()
        var figures = try BenchRun.with(daemon) { try measure(in: $0) }
        figures.sizes = try FileSizes.measure(pathmond: daemon.pathmondBinary, stripped: stripped, deb: deb)
        figures.load = (loadBefore, loadAverage())
        print(figures.table().render())
    }

    private func measure(in bench: BenchRun) throws -> IssueFigures {
        var figures = IssueFigures(subscribers: subscribers)

        progress("latency: \(latencyCount) route changes with one uplink, then \(latencyCount) with two")
        let probe = Probe()
        let listener = try bench.namespace.entered { () throws(BenchError) in try RawListener(probe: probe) }
        let runner = Runner(
            writer: try bench.requestWriter(), probe: probe, topology: bench.namespace.topology, warmup: 6,
            count: latencyCount, timeoutNanoseconds: 1_000_000_000, pauseMicroseconds: latencyPauseMicroseconds)
        figures.latency = try runner.report(
            [.route, .uplink], listener: listener, socketPath: bench.pathmond.socketPath)
        if verbose { print(figures.latency!.table() + "\n") }

        progress("CPU: \(flips) path flips, \(flipGapMicroseconds) µs apart")
        let rawListener = try Child(
            bench.namespace.exec + [DaemonOptions.sibling("pathmond-bench"), "raw-listen"], output: .null)
        defer { rawListener.stop() }
        let callsListener = try Child(
            bench.namespace.exec + [DaemonOptions.sibling("pathmond-bench"), "raw-listen", "--pathmond-calls"],
            output: .null)
        defer { callsListener.stop() }
        usleep(500_000)
        let pids = [bench.pathmond.pid, rawListener.pid, callsListener.pid]
        let stormProbe = StormProbe(pids: pids, listeners: NetlinkSockets(processes: pids, namespaceProcess: pids[0]))
        figures.flips = try PathFlips(count: flips, gapMicroseconds: flipGapMicroseconds).measure(
            in: bench, probe: stormProbe)
        rawListener.stop()
        callsListener.stop()

        progress(
            "fan-out: \(subscribers) WatchPath, then \(subscribers) WatchFlow subscribers, \(fanOutCount) changes each")
        let series = FanOutSeries(
            subscribers: subscribers, count: fanOutCount, timeoutMilliseconds: 5000, pauseMilliseconds: 20,
            getPathIntervalMicroseconds: 500)
        let (results, overflows) = try series.measure([.path, .flow], in: bench) { result in
            if verbose { print(result.table().render() + "\n") }
        }
        figures.watchPath = results[0]
        figures.watchFlow = results[1]
        figures.fanOutOverflows = overflows
        return figures
    }

    private func progress(_ line: String) {
        // To stderr, so that stdout holds the table alone.
        let bytes = Array("pathmond-bench table: \(line)\n".utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}

/// /proc/loadavg's first three fields: how busy the machine was, printed with the figures.
func loadAverage() -> String {
    readFile("/proc/loadavg").split(separator: " ").prefix(3).joined(separator: " ")
}
