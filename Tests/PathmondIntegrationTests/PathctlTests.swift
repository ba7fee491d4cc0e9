// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The CLI, run as a user would run it, against a real daemon.
@Suite(.serialized) struct PathctlTests {
    static func scenario() throws -> Scenario {
        try Scenario.start { namespace in
            try namespace.addVeth("eth0", peer: "eth0-peer")
            try namespace.ip("address add 192.0.2.10/24 dev eth0")
            try namespace.ip("route add default via 192.0.2.1 dev eth0 metric 100")
            try namespace.addVeth("wwan0", peer: "wwan0-peer")
        }
    }

    @Test func statusPrintsThePathAndATable() async throws {
        let scenario = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied && $0.linkQuality != nil }

        let output = try runCommand([product("pathctl"), "status", "--socket", scenario.daemon.socketPath]).output
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.first == "Path: satisfied via eth0 (wired); IPv4, link good; gateways 192.0.2.1")
        #expect(lines.contains { $0.hasPrefix("IDX") && $0.contains("EXPENSIVE") && $0.contains("GATEWAY") })
        // A table row: index, then the name.
        func row(_ name: String) -> String? {
            lines.first { $0.split(separator: " ").dropFirst().first == Substring(name) }
        }
        let eth0 = try #require(row("eth0"))
        #expect(eth0.contains("wired") && eth0.contains("usable") && eth0.contains("192.0.2.10/24"))
        #expect(eth0.contains("192.0.2.1"))
        let wwan0 = try #require(row("wwan0"))
        #expect(wwan0.contains("cellular") && wwan0.contains("yes"), "cellular is expensive: \(wwan0)")
    }

    @Test func statusJSONUsesTheVarlinkFieldNames() async throws {
        let scenario = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied && $0.linkQuality != nil }

        let output = try runCommand([product("pathctl"), "status", "--json", "--socket", scenario.daemon.socketPath])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(output.output.utf8)) as? [String: Any])
        let path = try #require(document["path"] as? [String: Any])
        #expect(path["status"] as? String == "satisfied")
        #expect(path["gateways"] as? [String] == ["192.0.2.1"])
        let interfaces = try #require(document["interfaces"] as? [[String: Any]])
        #expect(interfaces.compactMap { $0["name"] as? String }.contains("wwan0"))
    }

    @Test func monitorStreamsChanges() async throws {
        let scenario = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied && $0.linkQuality != nil }

        let stream = try StreamingCommand([product("pathctl"), "monitor", "--socket", scenario.daemon.socketPath])
        defer { stream.stop() }
        #expect(try stream.nextLine() == "satisfied via eth0 (wired); IPv4, link good; gateways 192.0.2.1")
        try scenario.namespace.ip("route del default via 192.0.2.1 dev eth0 metric 100")
        #expect(try stream.nextLine() == "unsatisfied: no default route")
    }

    @Test(arguments: [["status"], ["status", "--json"], ["monitor"]])
    func clearErrorWhenTheDaemonIsNotRunning(verb: [String]) throws {
        let result = try runCommand(
            [product("pathctl")] + verb + ["--socket", "/tmp/pmit-nonexistent/io.pathmond"], check: false)
        #expect(result.status == 69)
        #expect(result.errorOutput.contains("pathmond is not running"))
        #expect(result.output.isEmpty)
    }
}
