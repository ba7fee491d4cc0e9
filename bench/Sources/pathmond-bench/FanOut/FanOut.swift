// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

#if canImport(Glibc)
    import Glibc
#endif

/// `pathmond-bench fan-out`: a route change reaching 1,000 subscribers (WatchPath, then WatchFlow with distinct
/// remote addresses), timed to the last one, with GetPath timed meanwhile by another client (issue 11).
struct FanOut: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fan-out",
        abstract: "Route change → the last of 1,000 subscribers, and GetPath meanwhile; a raw fan-out as reference.",
        discussion: """
            Creates its own network namespaces and starts pathmond in them (root needed). Each change deletes or \
            re-adds `default dev veth0`: every WatchPath subscriber's path and every flow's viability flips once. \
            The reference is the machine's floor, measured on alternate changes of the same kind: a bare thread \
            reading the same event from netlink and writing pathmond's reply to 1,000 connections with write(2). \
            Subscribers of both sides live in client processes of their own, --subscribers-per-process each.
            """
    )

    @OptionGroup var daemon: DaemonOptions

    @Option(help: "Subscribers per kind.")
    var subscribers = 1000

    @Option(
        help: """
            Subscribers one client process holds at most (pathmond's and the raw fan-out's alike): each process \
            needs a descriptor per subscriber, under the open-file limit.
            """)
    var subscribersPerProcess = 2500

    @Option(name: [.customShort("n"), .long], help: "Measured changes per kind (after 4 unmeasured).")
    var count = 100

    @Option(help: "Which subscribers: path, flow or both (path,flow).")
    var kinds = "path,flow"

    @Option(name: .customLong("timeout-ms"), help: "How long a change may take to reach every subscriber.")
    var timeoutMilliseconds = 5000

    @Option(name: .customLong("pause-ms"), help: "Quiet time before each change.")
    var pauseMilliseconds: UInt32 = 20

    @Option(name: .customLong("getpath-interval-us"), help: "Pause between the timing client's GetPath calls.")
    var getPathIntervalMicroseconds: UInt32 = 500

    func validate() throws {
        guard subscribers > 0, count > 0, subscribersPerProcess > 0 else {
            throw ValidationError("--subscribers, --subscribers-per-process and --count must be positive.")
        }
        guard Set(kinds.split(separator: ",")).isSubset(of: ["path", "flow"]) else {
            throw ValidationError("--kinds takes path, flow or path,flow.")
        }
    }

    func run() throws {
        // The bench holds the raw daemon's end of every raw subscriber; each worker its share of either side's.
        let limit = raiseOpenFileLimit()
        guard limit > subscribers + 64, limit > subscribersPerProcess + 64 else {
            throw ValidationError(
                "the open-file limit (\(limit)) is too low for \(subscribers) subscribers, "
                    + "\(subscribersPerProcess) per process.")
        }
        try BenchRun.with(daemon) { try measure(in: $0) }
    }

    private func measure(in bench: BenchRun) throws {
        print(
            "pathmond-bench fan-out: \(subscribers) subscribers per kind, \(count) route changes each, "
                + "\(pauseMilliseconds) ms quiet before each; latency from the change's send")
        let kinds = kinds.split(separator: ",").map { $0 == "flow" ? FanOutRun.Kind.flow : .path }
        let series = FanOutSeries(
            subscribers: subscribers, count: count, timeoutMilliseconds: timeoutMilliseconds,
            pauseMilliseconds: pauseMilliseconds, getPathIntervalMicroseconds: getPathIntervalMicroseconds,
            subscribersPerProcess: subscribersPerProcess)
        let (_, overflows) = try series.measure(kinds, in: bench) { result in
            print("")
            print(result.table().render())
        }
        if overflows > 0 { print("raw listener overflows: \(overflows)") }
    }
}

/// One fan-out run per kind, in order, sharing one raw listener and one raw fan-out: `fan-out` and `table` run it.
struct FanOutSeries {
    var subscribers: Int
    var count: Int
    var timeoutMilliseconds: Int
    var pauseMilliseconds: UInt32
    var getPathIntervalMicroseconds: UInt32
    var subscribersPerProcess = 2500

    /// Each kind's result, and the raw netlink listener's overflows. The raw fan-out is measured with the first kind
    /// and reused for the others: N distinct replies cost the raw daemon the same N writes as one reply N times.
    /// `finished` gets each result as soon as its kind is done.
    func measure(
        _ kinds: [FanOutRun.Kind], in bench: BenchRun, finished: (FanOutResult) -> Void = { _ in }
    ) throws -> ([FanOutResult], overflows: Int) {
        let writer = try bench.requestWriter()
        let raw = try RawStamp(in: bench.namespace)
        defer { raw.stop() }
        var floor: FanOutResult.Raw?
        var results: [FanOutResult] = []
        for kind in kinds {
            let run = FanOutRun(
                kind: kind, subscribers: subscribers, count: count,
                timeoutNanoseconds: UInt64(timeoutMilliseconds) * 1_000_000,
                pauseMicroseconds: pauseMilliseconds * 1000,
                getPathIntervalMicroseconds: getPathIntervalMicroseconds,
                subscribersPerProcess: subscribersPerProcess, measuresRawFanOut: floor == nil)
            var result = try run.measure(in: bench, writer: writer, raw: raw)
            if var earlier = floor {
                earlier.isReused = true
                result.raw = earlier
            } else {
                floor = result.raw
            }
            results.append(result)
            finished(result)
        }
        return (results, raw.overflows)
    }
}
