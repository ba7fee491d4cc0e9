// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathMonitor
import PathProtocol
import Testing

/// The path history end to end: real kernel changes in a namespace, a policy change, a reload, each recorded with
/// its cause in order; `pathctl log --follow` streaming them as they happen; the bound; a restart; a crash in the
/// middle of an append; a damaged file.
@Suite(.serialized) struct HistoryTests {
    static func configuration(type: String = "wifi", extra: String = "") -> String {
        """
        [interface wlan*]
        type = \(type)
        network = wifi:Home
        \(extra)
        """
    }

    static func wifi(_ namespace: NetworkNamespace) throws {
        try namespace.addVeth("wlan0", peer: "wlan0-peer")
        try namespace.ip("address add 198.51.100.10/24 dev wlan0")
    }

    static func pathctl(_ scenario: Scenario, _ arguments: [String]) throws -> CommandResult {
        try runCommand([product("pathctl")] + arguments + ["--socket", scenario.daemon.socketPath], check: false)
    }

    static func history(_ scenario: Scenario) throws -> [WireHistoryEntry] {
        try PathmondConnection(socketPath: scenario.daemon.socketPath).history()
    }

    /// The next JSON line `pathctl log --follow --json` prints.
    static func nextEntry(_ follow: StreamingCommand) throws -> WireHistoryEntry {
        try JSONDecoder().decode(WireHistoryEntry.self, from: Data(follow.nextLine().utf8))
    }

    @Test func changesAreRecordedWithTheirCausesInOrderAndFollowed() async throws {
        let scenario = try Scenario.start(configuration: Self.configuration(), prepare: Self.wifi)
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .unsatisfied }
        let follow = try StreamingCommand([
            product("pathctl"), "log", "--follow", "--json", "--socket", scenario.daemon.socketPath,
        ])
        defer { follow.stop() }
        // The stored entries first: the start.
        let start = try Self.nextEntry(follow)
        #expect(start.cause.kind == "resync")
        #expect(start.cause.description.contains("pathmond started"))

        try scenario.namespace.ip("route add default via 198.51.100.1 dev wlan0")
        let routed = try Self.nextEntry(follow)
        #expect(routed.cause.kind == "kernel")
        #expect(routed.cause.kernelTables == ["route"])
        #expect(routed.cause.interfaces == ["wlan0"])
        #expect(routed.before.status == "unsatisfied" && routed.after.interfaces == ["wlan0"])

        let set = try Self.pathctl(scenario, ["set-constrained", "wlan0"])
        #expect(set.status == 0, "\(set.errorOutput)")
        let policy = try Self.nextEntry(follow)
        #expect(policy.cause.kind == "policy")
        #expect(policy.cause.network == "wifi:Home")
        #expect(policy.cause.uid == 0)
        #expect(policy.after.isConstrained)

        try scenario.daemon.rewriteConfiguration(Self.configuration(type: "cellular"))
        scenario.daemon.signal(SIGHUP)
        let reload = try Self.nextEntry(follow)
        #expect(reload.cause.kind == "configuration")
        #expect(reload.after.isExpensive)

        try scenario.namespace.farIP("link set wlan0-peer down")
        let carrier = try Self.nextEntry(follow)
        #expect(carrier.cause.kind == "kernel")
        #expect(carrier.cause.kernelTables?.contains("link") == true)
        #expect(carrier.after.unsatisfiedReason == "noCarrier")

        // The same, stored, in order, with consecutive sequence numbers; and as text for people.
        let stored = try Self.history(scenario)
        #expect(stored.map(\.cause.kind) == ["resync", "kernel", "policy", "configuration", "kernel"])
        #expect(stored.map(\.sequence) == Array(1...5))
        let text = try Self.pathctl(scenario, ["log"])
        #expect(text.status == 0)
        let lines = text.output.split(separator: "\n")
        #expect(lines.count == 5)
        #expect(lines[1].hasSuffix("← kernel: route on wlan0"))
        #expect(lines[2].contains("policy: wifi:Home"))
        #expect(lines[2].contains("by uid 0"))
        #expect(lines[3].hasSuffix("← configuration reloaded"))
        // Filters: another interface has no entries; "--since" in the future neither; "-n 2" the newest two.
        #expect(try Self.pathctl(scenario, ["log", "--interface", "eth9"]).output.isEmpty)
        #expect(try Self.pathctl(scenario, ["log", "--since", "@4000000000"]).output.isEmpty)
        let newest = try Self.pathctl(scenario, ["log", "-n", "2", "--json"]).output.split(separator: "\n")
        #expect(newest.count == 2)
        #expect(try Self.pathctl(scenario, ["log", "--since", "the day after"]).status == 64)
        // pathctl status says when the path last changed, and why.
        let status = try Self.pathctl(scenario, ["status"])
        #expect(status.output.contains("Last change: "))
        #expect(status.output.contains("kernel: link"))
    }

    @Test func theBoundHoldsAndARestartKeepsTheHistory() async throws {
        let scenario = try Scenario.start(
            configuration: Self.configuration(extra: "[history]\nentries = 3"), prepare: Self.wifi)
        defer { #expect(scenario.tearDown() == 0) }
        for _ in 0..<3 {
            try scenario.namespace.ip("route add default via 198.51.100.1 dev wlan0")
            _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
            try scenario.namespace.ip("route del default via 198.51.100.1 dev wlan0")
            _ = try await scenario.client.log.nextPath { $0.status == .unsatisfied }
        }
        let bounded = try Self.history(scenario)
        #expect(bounded.map(\.sequence) == [5, 6, 7])
        // A clean stop writes the file; the next start continues it.
        #expect(scenario.daemon.stop() == 0)
        let file = scenario.daemon.stateDirectory + "/history.jsonl"
        #expect(FileManager.default.fileExists(atPath: file))
        try scenario.daemon.start()
        try await eventually("the restart recorded") {
            try Self.history(scenario).count == 3 && (try Self.history(scenario).last?.sequence == 8)
        }
        let restarted = try Self.history(scenario)
        #expect(restarted.map(\.sequence) == [6, 7, 8])
        #expect(restarted.last?.cause.kind == "resync")
        // The kernel path went on as it was: the restart's entry starts from nothing known.
        #expect(restarted[1].after.unsatisfiedReason == "noDefaultRoute")
    }

    @Test func aDamagedHistoryFileIsSetAsideAndTheDaemonStarts() async throws {
        let namespace = try NetworkNamespace()
        defer { namespace.delete() }
        try Self.wifi(namespace)
        let daemon = try Daemon(in: namespace, configuration: Self.configuration())
        defer { daemon.cleanUp() }
        try FileManager.default.createDirectory(atPath: daemon.stateDirectory, withIntermediateDirectories: true)
        let file = daemon.stateDirectory + "/history.jsonl"
        // A whole line that is not an entry: damage, unlike a last line an append did not finish (next test).
        try Data("{\"format\":\"pathmond-history\",\"version\":1}\n{\"sequence\": 1, tor\n".utf8).write(
            to: URL(filePath: file))
        try daemon.start()
        let names = try FileManager.default.contentsOfDirectory(atPath: daemon.stateDirectory)
        #expect(names.contains { $0.hasPrefix("history.jsonl.corrupt-") })
        #expect(daemon.log.contains("set aside"))
        let entries = try PathmondConnection(socketPath: daemon.socketPath).history()
        #expect(entries.map(\.sequence) == [1])
        #expect(daemon.stop() == 0)
        // The fresh file is whole again.
        let reloaded = try String(contentsOfFile: file, encoding: .utf8)
        #expect(reloaded.hasPrefix("{\"format\":\"pathmond-history\",\"version\":1}\n"))
    }

    /// The writer appends each change to the file soon after it happens, so a crash keeps what was written; one
    /// that cut the last append short loses that line only, and says so.
    @Test func aCrashKeepsTheAppendedEntriesAndLosesOnlyALineCutShort() async throws {
        let scenario = try Scenario.start(configuration: Self.configuration(), prepare: Self.wifi)
        defer { #expect(scenario.tearDown() == 0) }
        let file = scenario.daemon.stateDirectory + "/history.jsonl"
        func lines() -> [Substring] {
            ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(separator: "\n")
        }
        for _ in 0..<2 {
            try scenario.namespace.ip("route add default via 198.51.100.1 dev wlan0")
            _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
            try scenario.namespace.ip("route del default via 198.51.100.1 dev wlan0")
            _ = try await scenario.client.log.nextPath { $0.status == .unsatisfied }
        }
        // The start and four changes, appended by the writer's thread (at most a second apart).
        try await eventually("the changes are in the file") { lines().count == 1 + 5 }
        scenario.daemon.kill()
        // The crash happened in the middle of another append.
        let handle = try FileHandle(forWritingTo: URL(filePath: file))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(lines()[5].prefix(60).utf8))
        try handle.close()

        try scenario.daemon.start()
        #expect(scenario.daemon.log.contains("cut short"))
        let names = try FileManager.default.contentsOfDirectory(atPath: scenario.daemon.stateDirectory)
        #expect(!names.contains { $0.contains(".corrupt-") }, "\(names)")
        try await eventually("the restart is recorded") { try Self.history(scenario).count == 6 }
        #expect(try Self.history(scenario).map(\.sequence) == Array(1...6))
        #expect(scenario.daemon.stop() == 0)
        // Rewritten whole: the cut-short bytes are gone, and every line is an entry.
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.hasSuffix("\n"))
        let stored = text.split(separator: "\n").dropFirst().map {
            try? JSONDecoder().decode(WireHistoryEntry.self, from: Data($0.utf8))
        }
        #expect(stored.map { $0?.sequence } == (1...6).map { Optional(UInt64($0)) })
    }
}
