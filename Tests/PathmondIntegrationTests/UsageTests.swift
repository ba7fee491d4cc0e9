// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathMonitor
import PathProtocol
import Testing

/// Usage per network (issue 43) against the kernel's own counters: megabytes sent over a veth to the far
/// namespace are counted to the wired network's key within 1 % of what the interface counted; two networks on
/// one interface in turn are counted apart; counts survive a restart, a kill -9 (the bytes sent meanwhile
/// included: the interface kept its counters) and an interface re-created with its counters back at zero.
@Suite(.serialized) struct UsageTests {
    static let gateway = "192.0.2.1"

    /// eth0 routed via 192.0.2.1, which answers from the far namespace: a wired network the daemon identifies.
    static func identifiedScenario(
        configuration: String = Scenario.testConfiguration
    ) async throws -> (Scenario, key: String) {
        let scenario = try Scenario.start(configuration: configuration) { namespace in
            try namespace.addWiredUplink(routed: true)
            try namespace.farIP("link set eth0-peer address 02:00:00:00:aa:01")
            try namespace.farIP("address add \(gateway)/24 dev eth0-peer")
        }
        let key = "wired:02:00:00:00:aa:01"
        try await identified(scenario, key)
        return (scenario, key)
    }

    static func identified(_ scenario: Scenario, _ key: String) async throws {
        try await eventually("eth0's network identified as \(key)") {
            try runCommand(scenario.namespace.exec + ["bash", "-c", "echo > /dev/udp/\(gateway)/9"], check: false)
            return try PathmondConnection(socketPath: scenario.daemon.socketPath).interfaces()
                .first { $0.name == "eth0" }?.network == key
        }
    }

    /// Sends `bytes` of UDP payload to the gateway's discard port from inside the namespace (unconnected: the
    /// far side's port-unreachable answers do not stop it).
    static func send(_ scenario: Scenario, bytes: Int) throws {
        let program = """
            import socket, sys
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            chunk = b"x" * 1400
            left = int(sys.argv[1])
            while left > 0:
                s.sendto(chunk[:min(left, 1400)], ("\(gateway)", 9))
                left -= 1400
            """
        try runCommand(scenario.namespace.exec + ["python3", "-c", program, "\(bytes)"])
    }

    /// eth0's kernel counters: (sent, received).
    static func counters(_ scenario: Scenario) throws -> (sent: UInt64, received: UInt64) {
        let output = try scenario.namespace.ip("-j -s link show dev eth0").output
        let links = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
        let stats = try #require(links.first?["stats64"] as? [String: Any])
        let tx = try #require((stats["tx"] as? [String: Any])?["bytes"] as? NSNumber)
        let rx = try #require((stats["rx"] as? [String: Any])?["bytes"] as? NSNumber)
        return (tx.uint64Value, rx.uint64Value)
    }

    static func usage(_ scenario: Scenario, _ key: String) throws -> WireNetworkUsage? {
        try PathmondConnection(socketPath: scenario.daemon.socketPath).usage().first { $0.key == key }
    }

    static func expectClose(_ counted: UInt64, _ truth: UInt64, _ what: String) {
        let difference = counted > truth ? counted - truth : truth - counted
        #expect(difference * 100 <= truth, "\(what): counted \(counted), the interface counted \(truth)")
    }

    @Test func megabytesAreCountedWithinOnePercentOfTheInterfaceCounters() async throws {
        let (scenario, key) = try await Self.identifiedScenario()
        defer { #expect(scenario.tearDown() == 0) }
        let before = try #require(try Self.usage(scenario, key), "the network is listed once identified")
        let kernelBefore = try Self.counters(scenario)
        try Self.send(scenario, bytes: 4_000_000)
        let kernelAfter = try Self.counters(scenario)
        let after = try #require(try Self.usage(scenario, key))
        Self.expectClose(after.today.sent - before.today.sent, kernelAfter.sent - kernelBefore.sent, "sent")
        #expect(after.today.sent - before.today.sent > 4_000_000)
        #expect(after.cycle.sent == after.today.sent + (after.cycle.sent - after.today.sent))
        #expect(after.cycle.sent >= after.today.sent)
        #expect(after.interfaces == ["eth0"])
        #expect(after.pastCycles.count == 3)

        let json = try runCommand([product("pathctl"), "usage", "--json", "--socket", scenario.daemon.socketPath])
        #expect(json.output.contains("\"key\":\"\(key)\"") || json.output.contains("\"key\": \"\(key)\""))
        let table = try runCommand([product("pathctl"), "usage", "--socket", scenario.daemon.socketPath])
        #expect(table.output.contains("MB"), "\(table.output)")
    }

    @Test func twoNetworksOnOneInterfaceAreCountedApart() async throws {
        let (scenario, first) = try await Self.identifiedScenario()
        defer { #expect(scenario.tearDown() == 0) }
        let start = try Self.counters(scenario)
        try Self.send(scenario, bytes: 1_000_000)
        let middle = try Self.counters(scenario)
        // Another network behind the same port: a new gateway (another MAC) answers for the same address.
        let second = "wired:02:00:00:00:aa:02"
        try scenario.namespace.farIP("link set eth0-peer address 02:00:00:00:aa:02")
        try scenario.namespace.ip("neigh flush dev eth0")
        try await Self.identified(scenario, second)
        let switched = try Self.counters(scenario)
        try Self.send(scenario, bytes: 2_000_000)
        let end = try Self.counters(scenario)
        let firstUsage = try #require(try Self.usage(scenario, first))
        let secondUsage = try #require(try Self.usage(scenario, second))
        // The first network counted from its identification (before `start`) to the switch: at least the
        // megabyte, at most what the interface sent until the second was known.
        #expect(firstUsage.today.sent >= middle.sent - start.sent)
        #expect(firstUsage.today.sent <= switched.sent)
        Self.expectClose(secondUsage.today.sent, end.sent - switched.sent, "the second network")
        #expect(firstUsage.interfaces.isEmpty)
        #expect(secondUsage.interfaces == ["eth0"])
    }

    @Test func countsSurviveARestartAndAKill() async throws {
        let (scenario, key) = try await Self.identifiedScenario()
        defer { #expect(scenario.tearDown() == 0) }
        let kernelStart = try Self.counters(scenario)
        let start = try #require(try Self.usage(scenario, key)).today.sent
        try Self.send(scenario, bytes: 1_000_000)
        #expect(scenario.daemon.stop() == 0)
        // Sent while pathmond is stopped: counted when it comes back to the same interface on the same network.
        try Self.send(scenario, bytes: 1_000_000)
        try scenario.daemon.start()
        try await Self.identified(scenario, key)
        try Self.send(scenario, bytes: 1_000_000)
        // A crash: nothing written at the end. The interface keeps its counters, so nothing is lost.
        scenario.daemon.kill()
        try Self.send(scenario, bytes: 1_000_000)
        try scenario.daemon.start()
        try await Self.identified(scenario, key)
        let kernelEnd = try Self.counters(scenario)
        let end = try #require(try Self.usage(scenario, key)).today.sent
        Self.expectClose(end - start, kernelEnd.sent - kernelStart.sent, "sent across a restart and a kill")
    }

    @Test func aReCreatedInterfaceCountsFromZero() async throws {
        let (scenario, key) = try await Self.identifiedScenario()
        defer { #expect(scenario.tearDown() == 0) }
        try Self.send(scenario, bytes: 1_000_000)
        let beforeDeletion = try #require(try Self.usage(scenario, key)).today.sent
        try scenario.namespace.ip("link del eth0")
        try await eventually("eth0 no longer counted") { try Self.usage(scenario, key)?.interfaces == [] }
        try scenario.namespace.addWiredUplink(routed: true)
        try scenario.namespace.farIP("link set eth0-peer address 02:00:00:00:aa:01")
        try scenario.namespace.farIP("address add \(Self.gateway)/24 dev eth0-peer")
        try await Self.identified(scenario, key)
        try Self.send(scenario, bytes: 2_000_000)
        let kernel = try Self.counters(scenario)
        let after = try #require(try Self.usage(scenario, key)).today.sent
        // The new eth0's counters started at zero; every byte it sent on the network counts.
        Self.expectClose(after - beforeDeletion, kernel.sent, "the re-created interface")
    }

    @Test func aDamagedUsageFileIsKeptAsideAndCountingGoesOn() async throws {
        let (scenario, key) = try await Self.identifiedScenario()
        defer { #expect(scenario.tearDown() == 0) }
        #expect(scenario.daemon.stop() == 0)
        let path = scenario.daemon.stateDirectory + "/usage.json"
        try Data("{\"version\":1,\"networks\":[{\"key\":\"bogus\",\"days\":[]}]}".utf8).write(to: URL(filePath: path))
        try scenario.daemon.start()
        try await eventually("the damage is logged") { scenario.daemon.log.contains("an unknown network key") }
        let names = try FileManager.default.contentsOfDirectory(atPath: scenario.daemon.stateDirectory)
        #expect(names.contains { $0.hasPrefix("usage.json.corrupt-") }, "\(names)")
        try await Self.identified(scenario, key)
        try Self.send(scenario, bytes: 500_000)
        #expect(try #require(try Self.usage(scenario, key)).today.sent >= 500_000)
    }

    @Test func metricsCountEachNetworksBytes() async throws {
        let directory = try MetricsTests.textfileDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (scenario, key) = try await Self.identifiedScenario(configuration: MetricsTests.configuration(directory))
        defer { #expect(scenario.tearDown() == 0) }
        try Self.send(scenario, bytes: 1_000_000)
        // GetUsage reads the counters; the metrics file follows within its once-a-second limit.
        let counted = try #require(try Self.usage(scenario, key)).today.sent
        let file = directory + "/pathmond.prom"
        let series = "pathmond_network_sent_bytes_total{network=\"\(key)\"} "
        try await eventually("the metrics file counts the network's bytes") {
            let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(series) }) else { return false }
            return UInt64(line.dropFirst(series.count)) ?? 0 >= counted
        }
        #expect(try MetricsTests.promtool(file).status == 0)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.contains("pathmond_network_received_bytes_total{network=\"\(key)\"}"))
    }

    /// A crash that also takes the interface (its counters) loses at most the last interval: with `[usage]
    /// interval = 1s`, what the file held a second after the traffic comes back.
    @Test func aCrashWithTheInterfaceGoneLosesAtMostOneInterval() async throws {
        let (scenario, key) = try await Self.identifiedScenario(
            configuration: Scenario.testConfiguration + "\n[usage]\ninterval = 1s\n")
        defer { #expect(scenario.tearDown() == 0) }
        try Self.send(scenario, bytes: 2_000_000)
        let counted = try #require(try Self.usage(scenario, key)).today.sent
        let file = scenario.daemon.stateDirectory + "/usage.json"
        try await eventually("the timer saved the bytes") { Self.savedSent(file, key) >= counted }
        scenario.daemon.kill()
        try scenario.namespace.ip("link del eth0")
        try scenario.namespace.addWiredUplink(routed: true)
        try scenario.namespace.farIP("link set eth0-peer address 02:00:00:00:aa:01")
        try scenario.namespace.farIP("address add \(Self.gateway)/24 dev eth0-peer")
        try scenario.daemon.start()
        try await Self.identified(scenario, key)
        #expect(try #require(try Self.usage(scenario, key)).today.sent >= counted)
    }

    /// The bytes sent that usage.json holds for `key`, all days together.
    static func savedSent(_ path: String, _ key: String) -> UInt64 {
        guard let data = FileManager.default.contents(atPath: path),
            let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let networks = document["networks"] as? [[String: Any]],
            let network = networks.first(where: { $0["key"] as? String == key }),
            let days = network["days"] as? [[String: Any]]
        else { return 0 }
        return days.reduce(0) { $0 + ((($1["sent"] as? NSNumber)?.uint64Value) ?? 0) }
    }
}
