// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

#if canImport(Glibc)
    import Glibc
#endif

/// `pathmond-bench idle`: what pathmond costs while nothing happens (issue 11): its wake-ups (context switches of
/// every thread), CPU time, resident memory and threads over a quiet period, beside `ip monitor route` started the
/// same way and measured the same way.
struct Idle: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "idle",
        abstract: "Wake-ups, CPU, RSS and threads of an idle pathmond, beside an idle `ip monitor route`.",
        discussion: """
            Creates its own network namespaces, starts pathmond and `ip monitor route` in them (root needed), waits \
            --settle-seconds, then counts over --seconds. With perf installed, `perf stat -e context-switches` on \
            each process runs alongside as a second count.
            """
    )

    @OptionGroup var daemon: DaemonOptions

    @Option(help: "How long to measure, in seconds.")
    var seconds = 120

    @Option(help: "How long to let both settle after start, in seconds.")
    var settleSeconds = 5

    func validate() throws {
        guard seconds > 0, settleSeconds >= 0 else { throw ValidationError("--seconds must be positive.") }
    }

    func run() throws {
        try BenchRun.with(daemon) { try measure(in: $0) }
    }

    private func measure(in bench: BenchRun) throws {
        let pathmond = bench.pathmond
        let monitor = try Child(bench.namespace.exec + ["ip", "monitor", "route"], output: .null)
        defer { monitor.stop() }
        sleep(UInt32(settleSeconds))

        let perf = PerfCounter.available
        let counters = perf ? [pathmond.pid, monitor.pid].map { PerfCounter(pid: $0, seconds: seconds) } : []
        guard let daemonStart = ProcessSnapshot(pid: pathmond.pid), let monitorStart = ProcessSnapshot(pid: monitor.pid)
        else { throw BenchError.setup("cannot read /proc for pathmond or ip monitor") }
        print("pathmond-bench idle: \(seconds) s of nothing after \(settleSeconds) s to settle")
        sleep(UInt32(seconds))
        guard let daemonEnd = ProcessSnapshot(pid: pathmond.pid), let monitorEnd = ProcessSnapshot(pid: monitor.pid)
        else { throw BenchError.setup("pathmond or ip monitor exited during the idle period") }
        let perfCounts = counters.map { $0.switches() }

        let daemonDelta = ProcessDelta(from: daemonStart, to: daemonEnd)
        let monitorDelta = ProcessDelta(from: monitorStart, to: monitorEnd)
        let minutes = Double(seconds) / 60
        var table = FigureTable(title: "idle over \(seconds) s", referenceName: "ip monitor route")
        table.add(
            "wake-ups per minute (context switches, all threads)",
            "\(rounded(Double(daemonDelta.switches) / minutes, 1))",
            "\(rounded(Double(monitorDelta.switches) / minutes, 1))",
            ratio: figureRatio(Double(daemonDelta.switches), Double(monitorDelta.switches)), goal: "0 per minute")
        table.add(
            "  voluntary / involuntary", "\(daemonDelta.voluntarySwitches) / \(daemonDelta.involuntarySwitches)",
            "\(monitorDelta.voluntarySwitches) / \(monitorDelta.involuntarySwitches)")
        if perfCounts.count == 2 {
            table.add(
                "perf context-switches per minute", perfCounts[0].map { "\(rounded(Double($0) / minutes, 1))" } ?? "-",
                perfCounts[1].map { "\(rounded(Double($0) / minutes, 1))" } ?? "-")
        }
        table.addTime("CPU time", daemonDelta.cpuNanoseconds, monitorDelta.cpuNanoseconds)
        table.add(
            "RSS (VmRSS)", formatMegabytes(kibibytes: daemonEnd.residentKiB),
            formatMegabytes(kibibytes: monitorEnd.residentKiB),
            ratio: figureRatio(Double(daemonEnd.residentKiB), Double(monitorEnd.residentKiB)), goal: "≤ 16 MB")
        table.add(
            "  anonymous / file-backed",
            "\(formatMegabytes(kibibytes: daemonEnd.anonymousKiB)) / \(formatMegabytes(kibibytes: daemonEnd.fileKiB))",
            "\(formatMegabytes(kibibytes: monitorEnd.anonymousKiB)) / \(formatMegabytes(kibibytes: monitorEnd.fileKiB))"
        )
        table.add("threads", "\(daemonEnd.threads)", "\(monitorEnd.threads)", goal: "≤ 3")
        if daemonDelta.threadsStarted + daemonDelta.threadsExited > 0 {
            table.note(
                "pathmond threads started / exited meanwhile: \(daemonDelta.threadsStarted) / "
                    + "\(daemonDelta.threadsExited) (an exited thread's switches are not counted)")
        }
        if !perf { table.note("perf not found: context switches from /proc only") }
        print(table.render())
    }
}
