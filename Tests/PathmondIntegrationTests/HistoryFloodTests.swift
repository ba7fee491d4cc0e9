// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PathModel
import Testing

/// Issue 22's GetHistory flood: `nobody` sends GetHistory on many connections and never reads a reply. Each call
/// used to encode the whole history on the calls loop and keep the reply whole per connection: root's `pathctl
/// status` waited 8.8-10.9 s behind 1,000 such calls, and pathmond grew by about 500 MB and kept much of it. Now the
/// replies stream from one shared encoding in bounded turns, so root is answered within a second in the usual
/// round, the daemon grows by less than `growthBoundMiB`, and it is back within `leftoverBoundMiB` of where it
/// started once the attacker leaves (bench/README.md has the figures: `pathmond-bench dos --history-flood`).
@Suite(.serialized) struct HistoryFloodTests {
    static let flooder = URL(filePath: #filePath).deletingLastPathComponent()
        .appending(path: "Fixtures/history_flood.py").path
    /// RSS growth allowed during the flood: the connections' own state (a few KiB each), never a reply per
    /// connection (a default history's reply is half a megabyte: 1,000 of them were 500 MB).
    static let growthBoundMiB = 32
    /// What may stay once the attacker has left (allocator slack), over the RSS before the flood.
    static let leftoverBoundMiB = 8

    /// A history file of `count` entries, as a daemon that recorded them would have written it.
    static func writeHistory(_ count: Int, to directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
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
        try Data(text.utf8).write(to: URL(filePath: directory + "/history.jsonl"))
    }

    static func flood(
        entries: Int, connections: Int, seconds: Int, pipelining: Bool = false, statusBound: Double = 1,
        growthBoundMiB: Int = growthBoundMiB
    ) async throws {
        let namespace = try NetworkNamespace()
        defer { namespace.delete() }
        try namespace.addWiredUplink(routed: true)
        let daemon = try Daemon(in: namespace, configuration: "[history]\nentries = \(entries)")
        defer { daemon.cleanUp() }
        try writeHistory(entries, to: daemon.stateDirectory)
        try daemon.start(timeout: .seconds(180))
        defer { #expect(daemon.stop() == 0) }
        let socket = daemon.socketPath
        func status() throws -> (seconds: Double, result: CommandResult) {
            let start = ContinuousClock.now
            let result = try runCommand(
                ["timeout", "10", product("pathctl"), "status", "--socket", socket], check: false)
            let elapsed = ContinuousClock.now - start
            return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, result)
        }
        #expect(try status().result.status == 0)
        let pid = try #require(daemon.processID)
        let before = try #require(residentKiB(pid))
        let peak = PeakSampler(pid: pid)

        let output = daemon.directory.appending(path: "flood.out").path
        let attack = Process()
        attack.executableURL = URL(filePath: "/bin/bash")
        attack.arguments = [
            "-c",
            "setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 \(flooder) \(socket) "
                + "\(connections) \(seconds) \(pipelining ? "pipeline" : "") > \(output) 2>&1",
        ]
        try attack.run()
        defer { if attack.isRunning { attack.terminate() } }
        // Root, while the connections are opened and while they are held: answered within `statusBound` in the
        // usual round (the median), and no round stalled. A round is one `pathctl status` on a 2-core machine that
        // the flood's own processes share: one outlier past the bound (1.6 s against 1.5) is the machine's, where
        // the starvation this guards against held every round 2.4-2.9 s.
        var times: [Double] = []
        while attack.isRunning {
            let (elapsed, result) = try status()
            times.append(elapsed)
            #expect(result.status == 0, "root's pathctl status, round \(times.count): \(result.errorOutput)")
            #expect(elapsed < 4 * statusBound, "root's pathctl status stalled \(elapsed) s in round \(times.count)")
            usleep(200_000)
        }
        let rounds = times.count
        let slowest = times.max() ?? 0
        let median = times.isEmpty ? 0 : times.sorted()[rounds / 2]
        #expect(median < statusBound, "root's pathctl status took \(median) s in the median round: \(times)")
        let report = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        #expect(report.contains("opened \(connections) refused 0"), "\(report)")
        #expect(report.contains("left"), "\(report)")
        #expect(rounds >= (pipelining ? 1 : 3), "root asked only \(rounds) times during the flood")
        let peakKiB = peak.stop()
        print(
            "history flood, \(entries) entries, \(connections) connections: root's status at worst \(slowest) s "
                + "over \(rounds) rounds; RSS \(before / 1024) MiB before, \(peakKiB / 1024) MiB at peak")
        #expect(
            peakKiB - min(peakKiB, before) < growthBoundMiB * 1024,
            "RSS grew from \(before) to \(peakKiB) KiB during the flood")
        // The attacker gone, the memory goes back.
        var after = peakKiB
        for _ in 0..<50 {
            after = residentKiB(pid) ?? after
            if after < before + leftoverBoundMiB * 1024 { break }
            usleep(100_000)
        }
        print("history flood: RSS \(after / 1024) MiB once the attacker left")
        #expect(after < before + leftoverBoundMiB * 1024, "RSS \(after) KiB after the flood, \(before) before")
        #expect(try status().result.status == 0)
        guard !pipelining else { return }
        // `pathctl log` shows the newest entries that fit in one reply, and says when that is not all of them (at
        // 100,000 entries it showed a quarter, silently).
        let log = try runCommand([product("pathctl"), "log", "--json", "--socket", socket], check: false)
        #expect(log.status == 0, "\(log.errorOutput)")
        let lines = log.output.split(separator: "\n")
        // The newest are the daemon's own start (a resync after the loaded entries) and what it detected right
        // after (a wired link's speed, read once the link is known, is a link-quality detection of its own).
        let start = lines.firstIndex {
            $0.contains("\"sequence\":\(entries + 1),") || $0.hasSuffix("\"sequence\":\(entries + 1)}")
        }
        #expect(start.map { lines.count - $0 <= 2 } == true, "\(lines.suffix(2))")
        if entries == PathHistory.defaultCapacity {
            #expect(lines.count == entries)
            #expect(!log.errorOutput.contains("showing the newest"))
        } else {
            #expect(lines.count > entries / 4)
            #expect(log.errorOutput.contains("showing the newest \(lines.count) changes"), "\(log.errorOutput)")
        }
        // Reading the whole history leaves nothing behind either (the old daemon idled at 263 MB after it).
        let idle = residentKiB(pid) ?? 0
        print("history flood: RSS \(idle / 1024) MiB after pathctl log")
        #expect(idle < before + leftoverBoundMiB * 1024, "RSS \(idle) KiB after pathctl log, \(before) before")
    }

    @Test func aThousandUnreadGetHistoryCallsLeaveRootServed() async throws {
        try await Self.flood(entries: PathHistory.defaultCapacity, connections: 1000, seconds: 8)
    }

    @Test func fiftyUnreadCallsAtTheLargestHistoryLeaveRootServed() async throws {
        try await Self.flood(entries: PathHistory.maximumCapacity, connections: 50, seconds: 8)
    }

    /// What one user's clients leave unread is bounded across their connections (`OutputBudget`, 16 MiB), as the
    /// number of their clients is: 200 connections each sending 600 calls without reading held 256 KiB of replies
    /// each, 50 MB (+64 MiB in all). The bound: the 16 MiB share, and the calls each connection read but has not
    /// answered (600 of them, queued as they came; about 24 MiB for 200 connections). Their calls are answered a
    /// share per turn, in turn with root's (`ClientConnection.callsPerTurn`): root waited 2.4-2.9 s while whole
    /// reads were answered at once, about 0.5 s since (debug build), so its bound is 1.5 s.
    @Test func aUsersUnreadRepliesAreBoundedAcrossConnections() async throws {
        try await Self.flood(
            entries: PathHistory.defaultCapacity, connections: 200, seconds: 8, pipelining: true, statusBound: 1.5,
            growthBoundMiB: 40)
    }
}
