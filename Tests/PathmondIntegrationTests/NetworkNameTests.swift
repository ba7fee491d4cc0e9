// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathMonitor
import PathProtocol
import Testing

/// Networks are shown by names people recognise (issue 12): the user's own name (`pathctl name`, kept in the
/// policy file across restarts), else for a wired network its gateway's address, never the bare key alone.
@Suite(.serialized) struct NetworkNameTests {
    static func scenario() throws -> (Scenario, key: String) {
        let scenario = try Scenario.start { namespace in
            try namespace.addWiredUplink(routed: true)
            try namespace.farIP("address add 192.0.2.1/24 dev eth0-peer")
        }
        let mac = try WiredIdentityTests.peerAddress(scenario.namespace, "eth0-peer")
        return (scenario, "wired:\(mac)")
    }

    static func pathctl(_ arguments: [String], _ socket: String) throws -> CommandResult {
        try runCommand(["env", "-u", "COLUMNS", product("pathctl")] + arguments + ["--socket", socket], check: false)
    }

    @Test func aNamedNetworkIsShownByItsNameEverywhere() async throws {
        let (scenario, key) = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        let socket = scenario.daemon.socketPath
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
        try WiredIdentityTests.resolveGateway(scenario.namespace, "192.0.2.1")
        try await eventually("eth0's network identified") {
            try PathmondConnection(socketPath: socket).interfaces().first { $0.name == "eth0" }?.network == key
        }
        // Unnamed, a wired network reads as its gateway, as `ip route` shows it, then the address that keys it.
        let mac = String(key.dropFirst("wired:".count))
        #expect(try Self.pathctl(["status"], socket).output.contains("wired network via gateway 192.0.2.1 (\(mac))"))

        let named = try Self.pathctl(["name", key, "Office"], socket)
        #expect(named.status == 0, "\(named.errorOutput)")
        #expect(named.output.contains("Office"))
        let status = try Self.pathctl(["status"], socket).output
        let eth0 = try #require(
            status.split(separator: "\n").first { $0.split(separator: " ").dropFirst().first == "eth0" })
        #expect(eth0.contains("Office") && !eth0.contains("wired network via"), "\(eth0)")
        let networks = try Self.pathctl(["networks", "--json=short"], socket).output
        let list = try #require(try JSONSerialization.jsonObject(with: Data(networks.utf8)) as? [[String: Any]])
        let office = try #require(list.first { $0["key"] as? String == key })
        #expect(office["name"] as? String == "Office" && office["displayName"] as? String == "Office")

        // Kept in the policy file: a restarted daemon still knows the name.
        let policy = try String(contentsOfFile: scenario.daemon.stateDirectory + "/policy.json", encoding: .utf8)
        #expect(policy.contains("\"name\": \"Office\""))
        scenario.daemon.stop()
        try scenario.daemon.start()
        let remembered = try Self.pathctl(["networks"], socket).output
        #expect(remembered.contains("Office"), "\(remembered)")

        // By interface too, and removed again.
        #expect(try Self.pathctl(["name", "eth0", "Büro 2"], socket).output.contains("Büro 2"))
        let removed = try Self.pathctl(["name", key, "--remove"], socket)
        #expect(removed.status == 0 && !removed.output.contains("Büro 2"), "\(removed.output)")
    }

    @Test func badNamesAreRefusedClearly() async throws {
        let (scenario, key) = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        let socket = scenario.daemon.socketPath
        let control = try Self.pathctl(["name", key, "Evil\u{1b}[2J"], socket)
        #expect(control.status == 64 && control.errorOutput.contains("without control,"))
        let hidden = try Self.pathctl(["name", key, "Off\u{202E}ice"], socket)
        #expect(hidden.status == 64 && hidden.errorOutput.contains("bidirectional or invisible characters"))
        let long = try Self.pathctl(["name", key, String(repeating: "x", count: 65)], socket)
        #expect(long.status == 64)
        // The daemon checks too: another client may send anything.
        #expect(throws: PathmondClientError.remote(.invalidParameter(parameter: "name"))) {
            try PathmondConnection(socketPath: socket).setNetworkName("a\nb", key: key)
        }
        // Characters a person cannot see are refused by the daemon as well (issue 21).
        for name in ["Off\u{202E}ice", "Office\u{200B}", "\u{FEFF}Office", "Off\u{2066}ice"] {
            #expect(throws: PathmondClientError.remote(.invalidParameter(parameter: "name"))) {
                try PathmondConnection(socketPath: socket).setNetworkName(name, key: key)
            }
        }
        let neither = try Self.pathctl(["name", key], socket)
        #expect(neither.status == 64 && neither.errorOutput.contains("Give a name for the network, or --remove"))
        // Nothing was named (the attached wired network is listed, without a name).
        let listed = try Self.pathctl(["networks", "--json=short"], socket).output
        let networks = try #require(try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]])
        #expect(networks.allSatisfy { $0["name"] == nil }, "\(listed)")
    }

    @Test func constrainedIsNeverAutoSinceNothingDetectsIt() async throws {
        let (scenario, _) = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        let socket = scenario.daemon.socketPath
        let result = try Self.pathctl(["set-expensive", "--key", "wifi:Cafe"], socket)
        #expect(result.status == 0, "\(result.errorOutput)")
        let row = try #require(result.output.split(separator: "\n").first { $0.contains("wifi:Cafe") })
        let cells = row.split(separator: " ", omittingEmptySubsequences: true)
        // NETWORK (Wi-Fi "Cafe": two words), CONSTRAINED, EXPENSIVE, ATTACHED, KEY.
        #expect(Array(cells.dropFirst(2).prefix(2)) == ["no", "yes"], "\(row)")
    }
}
