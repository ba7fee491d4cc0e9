// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// `dos`'s second attack (issue 22): `nobody` sends GetHistory on `connections` connections and never reads a
/// reply, while root keeps using the daemon as in the first. Figures: root's `pathctl status` and WatchPath
/// delivery during the flood beside the quiet period's, and pathmond's RSS before, at its peak, and once the
/// attacker has left (memory given back).
struct HistoryFlood {
    let connections: Int
    let entries: Int
    let seconds: Int
    let pathctl: String

    func measure(session: ServiceSession, pathmond: DaemonProcess, quiet: ServiceSession.Figures) throws {
        print(
            "pathmond-bench dos: \(seconds) s with nobody sending \(connections) unread GetHistory calls "
                + "(\(entries) entries stored)")
        let before = ProcessSnapshot(pid: pathmond.pid)?.residentKiB ?? 0
        let attacker = try Child(
            [
                "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", DaemonOptions.sibling("pathmond-bench"),
                "dos-history-attacker", "--socket", pathmond.socketPath, "--connections", "\(connections)",
                "--seconds", "\(seconds)",
            ], output: .pipe)
        defer { attacker.stop() }
        let flood = try session.measure(seconds: seconds)
        _ = attacker.wait()
        let leaving = StatusTimer.time(pathctl: pathctl, socketPath: pathmond.socketPath, limit: 120_000_000_000)
        // What stays once the connections are gone: sampled for two seconds, the lowest kept.
        var after = Int.max
        for _ in 0..<20 {
            usleep(100_000)
            after = min(after, ProcessSnapshot(pid: pathmond.pid)?.residentKiB ?? after)
        }
        let report = attacker.readAllOutput().split(separator: "\n").joined(separator: "; ")

        var table = FigureTable(title: "root's service while nobody floods GetHistory", referenceName: "quiet")
        table.addTime("pathctl status, max", flood.statusMax, quiet.statusMax, goal: "< 1 s")
        table.addTime("pathctl status, p50", nearestRank(flood.statusTimes, 0.5), nearestRank(quiet.statusTimes, 0.5))
        table.addTime(
            "pathctl status as the attacker leaves", leaving, nearestRank(quiet.statusTimes, 0.5), goal: "< 1 s")
        table.add("pathctl status failed or hung > 10 s", "\(flood.statusFailures)", "\(quiet.statusFailures)")
        table.addTime(
            "WatchPath delivery, p99", nearestRank(flood.delivery, 0.99), nearestRank(quiet.delivery, 0.99),
            goal: "< 10 ms")
        table.add("route changes not delivered within 1 s", "\(flood.misses)", "\(quiet.misses)")
        table.add(
            "pathmond RSS, peak during the flood", formatMegabytes(kibibytes: flood.peakResidentKiB),
            formatMegabytes(kibibytes: before), goal: "before + 32 MiB")
        table.add(
            "pathmond RSS once the attacker left", formatMegabytes(kibibytes: after == Int.max ? 0 : after),
            formatMegabytes(kibibytes: before), goal: "before + 8 MiB")
        table.note("reference column for RSS: just before the flood")
        table.note("attacker (nobody): \(report)")
        print(table.render())
    }

    /// A configuration that keeps `entries` history entries.
    static func writeConfiguration(entries: Int, to path: String) throws(BenchError) {
        try write("[history]\nentries = \(entries)\n", to: path)
    }

    /// A history file of `count` entries in the state directory, as a daemon that recorded them would leave it.
    static func writeHistory(_ count: Int, stateDirectory: String) throws(BenchError) {
        mkdir(stateDirectory, 0o755)
        var text = "{\"format\":\"pathmond-history\",\"version\":1}\n"
        text.reserveCapacity(count * 520)
        for index in 1...count {
            let interface = index % 2 == 0 ? "eth0" : "wlan0"
            text +=
                "{\"after\":{\"interfaces\":[\"\(interface)\"],\"isConstrained\":false,\"isExpensive\":false,"
                + "\"status\":\"satisfied\",\"supportsIPv4\":true,\"supportsIPv6\":false},\"before\":{\"interfaces\":[],"
                + "\"isConstrained\":false,\"isExpensive\":false,\"status\":\"unsatisfied\",\"supportsIPv4\":false,"
                + "\"supportsIPv6\":false,\"unsatisfiedReason\":\"noDefaultRoute\"},"
                + "\"bootID\":\"0f2d6a4e-6c1b-4b8e-9a57-3f1c2d7e8b90\",\"cause\":{\"description\":\"kernel: route on "
                + "\(interface)\",\"interfaces\":[\"\(interface)\"],\"kernelTables\":[\"route\"],\"kind\":\"kernel\"},"
                + "\"monotonicUsec\":\(index * 1000),\"realtimeUsec\":\(1_795_000_000_000_000 + index * 1000),"
                + "\"sequence\":\(index)}\n"
        }
        try write(text, to: stateDirectory + "/history.jsonl")
    }

    private static func write(_ text: String, to path: String) throws(BenchError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .system("open \(path)", errno) }
        defer { close(descriptor) }
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            guard written > 0 else { throw .system("write \(path)", errno) }
            bytes = bytes.dropFirst(written)
        }
    }
}
