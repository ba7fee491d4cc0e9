// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

#if canImport(Glibc)
    import Glibc
#endif

/// `pathmond-bench dos`: issue 10's denial-of-service scenario with figures. First a quiet period (the reference),
/// then `nobody` attacks (see `Attacker`) while root keeps using the daemon: `pathctl status` timed, a WatchPath
/// subscriber's delivery of route changes timed, the daemon's memory sampled, its log lines counted.
struct DenialOfService: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dos",
        abstract: "Root's service while `nobody` floods pathmond, beside the same figures while quiet.",
        discussion: """
            Creates its own network namespaces and starts pathmond in them (root needed); the attacker runs as \
            nobody through setpriv. The scratch directory is world-readable so nobody can reach the socket.
            """
    )

    @OptionGroup var daemon: DaemonOptions

    @Option(help: "How long the attack lasts (measured), in seconds.")
    var seconds = 30

    @Option(help: "How long the quiet reference lasts, in seconds.")
    var quietSeconds = 10

    @Option(help: "Connections nobody attempts.")
    var connections = 5000

    @Option(help: "Of those, connections that pipeline unread ListInterfaces calls.")
    var pipelined = 10

    @Option(help: "Of those, connections that send malformed messages and reconnect, over and over.")
    var flooders = 20

    @Option(name: .customLong("change-interval-ms"), help: "Time between route changes.")
    var changeIntervalMilliseconds: UInt32 = 100

    @Option(name: .customLong("status-interval-ms"), help: "Time between root's pathctl status calls.")
    var statusIntervalMilliseconds: UInt32 = 1000

    @Option(help: "After that attack, how long nobody floods GetHistory (0: not at all), in seconds.")
    var historySeconds = 20

    @Option(help: "Connections that each send one GetHistory call and never read the reply.")
    var historyConnections = 1000

    @Option(help: "Entries in the stored history (written before pathmond starts; [history] entries).")
    var historyEntries = 1000

    func validate() throws {
        guard seconds > 0, quietSeconds > 0 else { throw ValidationError("--seconds must be positive.") }
        guard historySeconds >= 0, (1...100_000).contains(historyEntries) else {
            throw ValidationError("--history-seconds must be 0 or more, --history-entries from 1 to 100000.")
        }
        guard pipelined + flooders <= connections else {
            throw ValidationError("--pipelined and --flooders are part of --connections.")
        }
    }

    func run() throws {
        _ = raiseOpenFileLimit()
        guard access(daemon.pathctlBinary, X_OK) == 0 else {
            throw ValidationError("no pathctl at \(daemon.pathctlBinary): build it or pass --pathctl.")
        }
        var options = daemon
        let configuration = "/tmp/pathmond-bench-dos-\(getpid()).conf"
        try HistoryFlood.writeConfiguration(entries: historyEntries, to: configuration)
        defer { unlink(configuration) }
        options.daemonArguments += ["--config", configuration]
        try BenchRun.with(options, prepare: { try HistoryFlood.writeHistory(historyEntries, stateDirectory: $0) }) {
            try measure(in: $0)
        }
    }

    private func measure(in bench: BenchRun) throws {
        let pathmond = bench.pathmond
        let session = try ServiceSession(
            bench: bench, pathctl: daemon.pathctlBinary, changeInterval: changeIntervalMilliseconds,
            statusInterval: statusIntervalMilliseconds)

        print("pathmond-bench dos: \(quietSeconds) s quiet, then \(seconds) s with nobody attacking")
        let quiet = try session.measure(seconds: quietSeconds)
        let attacker = try Child(
            [
                "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", DaemonOptions.sibling("pathmond-bench"),
                "dos-attacker", "--socket", pathmond.socketPath, "--connections", "\(connections)", "--pipelined",
                "\(pipelined)", "--flooders", "\(flooders)", "--seconds", "\(seconds)",
            ], output: .pipe)
        defer { attacker.stop() }
        let attack = try session.measure(seconds: seconds)
        attacker.wait()
        // The attacker's calls still queued when it left must not cost root anything either.
        let afterAttack = StatusTimer.time(
            pathctl: daemon.pathctlBinary, socketPath: pathmond.socketPath, limit: 120_000_000_000)
        let attackerReport = attacker.readAllOutput().split(separator: "\n").joined(separator: "; ")

        var table = FigureTable(title: "root's service while nobody attacks", referenceName: "quiet")
        table.addTime("pathctl status, max", attack.statusMax, quiet.statusMax, goal: "< 1 s")
        table.addTime("pathctl status, p50", nearestRank(attack.statusTimes, 0.5), nearestRank(quiet.statusTimes, 0.5))
        table.addTime(
            "pathctl status as the attacker leaves (limit 120 s)", afterAttack, nearestRank(quiet.statusTimes, 0.5),
            goal: "< 1 s")
        table.add("pathctl status failed or hung > 10 s", "\(attack.statusFailures)", "\(quiet.statusFailures)")
        table.addTime(
            "WatchPath delivery of a route change, p50", nearestRank(attack.delivery, 0.5),
            nearestRank(quiet.delivery, 0.5))
        table.addTime(
            "WatchPath delivery, p99", nearestRank(attack.delivery, 0.99), nearestRank(quiet.delivery, 0.99),
            goal: "< 10 ms")
        table.addTime("WatchPath delivery, max", attack.delivery.max(), quiet.delivery.max(), goal: "< 10 ms")
        table.add("route changes not delivered within 1 s", "\(attack.misses)", "\(quiet.misses)")
        table.addTime(
            "  raw netlink listener, p50 (the kernel's own)", nearestRank(attack.raw, 0.5), nearestRank(quiet.raw, 0.5))
        table.add(
            "pathmond RSS, peak (sampled each change)", formatMegabytes(kibibytes: attack.peakResidentKiB),
            formatMegabytes(kibibytes: quiet.peakResidentKiB),
            ratio: figureRatio(Double(attack.peakResidentKiB), Double(quiet.peakResidentKiB)),
            goal: "the documented bound")
        table.add(
            "log lines per minute (other than path changes)", "\(rounded(attack.logLinesPerMinute, 1))",
            "\(rounded(quiet.logLinesPerMinute, 1))",
            goal: "a few")
        table.note("attacker (nobody): \(attackerReport)")
        for line in attack.logSample { table.note("  log: \(line)") }
        print(table.render())
        if historySeconds > 0 {
            try HistoryFlood(
                connections: historyConnections, entries: historyEntries, seconds: historySeconds,
                pathctl: daemon.pathctlBinary
            ).measure(session: session, pathmond: pathmond, quiet: quiet)
        }
    }
}
