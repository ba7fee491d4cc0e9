// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathMonitor
import PathProtocol
import Testing

/// Low Data Mode end to end: the user marks a network, every subscriber hears it at once, the mark survives a
/// restart and comes back only with that network.
@Suite(.serialized) struct LowDataModeTests {
    static func configuration(ssid: String) -> String {
        """
        [interface wlan*]
        type = wifi
        network = wifi:\(ssid)

        [policy]
        admin-group = nogroup
        """
    }

    static func wifiUplink(_ namespace: NetworkNamespace) throws {
        try namespace.addVeth("wlan0", peer: "wlan0-peer")
        try namespace.ip("address add 198.51.100.10/24 dev wlan0")
        try namespace.ip("route add default via 198.51.100.1 dev wlan0")
    }

    func pathctl(_ scenario: Scenario, _ arguments: [String], as user: String? = nil) throws -> CommandResult {
        let command = [product("pathctl")] + arguments + ["--socket", scenario.daemon.socketPath]
        guard let user else { return try runCommand(command, check: false) }
        // A real non-root peer: the daemon sees its uid and groups through SO_PEERCRED.
        let ids = user.split(separator: ":").map(String.init)
        return try runCommand(
            ["setpriv", "--reuid=\(ids[0])", "--regid=\(ids[1])", "--clear-groups"] + command, check: false)
    }

    @Test func constrainedNetworkComesBackAfterRestartAndOnlyThatNetwork() async throws {
        let scenario = try Scenario.start(configuration: Self.configuration(ssid: "HomeNet"), prepare: Self.wifiUplink)
        defer { #expect(scenario.tearDown() == 0) }
        let log = scenario.client.log
        let before = try await log.nextPath { $0.status == .satisfied }
        #expect(!before.isConstrained)

        let set = try pathctl(scenario, ["set-constrained", "wlan0"])
        #expect(set.status == 0, "\(set.errorOutput)")
        #expect(set.output.contains("wifi:HomeNet"))
        // No kernel event: the policy change alone reaches the subscriber.
        let constrained = try await log.nextPath { $0.isConstrained }
        #expect(constrained.availableInterfaces.first?.isConstrained == true)

        let networks = try PathmondConnection(socketPath: scenario.daemon.socketPath).networks()
        #expect(networks.map(\.key) == ["wifi:HomeNet"])
        #expect(networks.first?.constrained == true)
        #expect(networks.first?.interfaces == ["wlan0"])

        // Restart: the mark is read back from the state directory.
        #expect(scenario.daemon.stop() == 0)
        try scenario.daemon.start()
        let afterRestart = try await log.nextPath { $0.status == .satisfied }
        #expect(afterRestart.isConstrained)

        // The same interface on another network is not constrained; the remembered one stays listed.
        #expect(scenario.daemon.stop() == 0)
        scenario.daemon.configuration = Self.configuration(ssid: "Cafe")
        try scenario.daemon.start()
        let elsewhere = try await log.nextPath { $0.status == .satisfied && !$0.isConstrained }
        #expect(elsewhere.interfaceNames == ["wlan0"])
        let remembered = try PathmondConnection(socketPath: scenario.daemon.socketPath).networks()
        #expect(Set(remembered.map(\.key)) == ["wifi:HomeNet", "wifi:Cafe"])
        #expect(remembered.first { $0.key == "wifi:HomeNet" }?.interfaces == [])

        // Off clears the mark; forget removes what is left.
        #expect(try pathctl(scenario, ["set-constrained", "--key", "wifi:HomeNet", "--off"]).status == 0)
        #expect(try PathmondConnection(socketPath: scenario.daemon.socketPath).networks().map(\.key) == ["wifi:Cafe"])
        let forget = try pathctl(scenario, ["forget", "wifi:HomeNet"])
        #expect(forget.status != 0)
        #expect(forget.errorOutput.contains("no setting is remembered for wifi:HomeNet"))
    }

    @Test func expensiveSettingWinsOverDetectionAndClears() async throws {
        let scenario = try Scenario.start(configuration: Self.configuration(ssid: "Phone"), prepare: Self.wifiUplink)
        defer { #expect(scenario.tearDown() == 0) }
        let log = scenario.client.log
        _ = try await log.nextPath { $0.status == .satisfied && !$0.isExpensive }
        #expect(try pathctl(scenario, ["set-expensive", "wlan0"]).status == 0)
        _ = try await log.nextPath { $0.isExpensive }
        #expect(try pathctl(scenario, ["set-expensive", "wlan0", "--auto"]).status == 0)
        _ = try await log.nextPath { !$0.isExpensive }
        #expect(try PathmondConnection(socketPath: scenario.daemon.socketPath).networks().isEmpty == false)
    }

    @Test func onlyRootAndTheAdminGroupMayChangePolicy() async throws {
        let scenario = try Scenario.start(configuration: Self.configuration(ssid: "HomeNet"), prepare: Self.wifiUplink)
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }

        let stranger = try pathctl(scenario, ["set-constrained", "wlan0"], as: "4242:4242")
        #expect(stranger.status == 77)
        #expect(stranger.errorOutput.contains("permission denied: only root and members of nogroup may change policy"))
        // Reading is for everyone.
        #expect(try pathctl(scenario, ["status"], as: "4242:4242").status == 0)
        #expect(try pathctl(scenario, ["networks"], as: "4242:4242").status == 0)

        let member = try pathctl(scenario, ["set-constrained", "wlan0"], as: "65534:65534")
        #expect(member.status == 0, "\(member.errorOutput)")
        _ = try await scenario.client.log.nextPath { $0.isConstrained }
    }

    @Test func badTargetsGetClearErrors() async throws {
        let scenario = try Scenario.start(configuration: Self.configuration(ssid: "HomeNet")) { namespace in
            try Self.wifiUplink(namespace)
            try namespace.addVeth("eth9", peer: "eth9-peer")
        }
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }

        let unknown = try pathctl(scenario, ["set-constrained", "nosuch0"])
        #expect(unknown.status != 0)
        #expect(unknown.errorOutput.contains("no interface named nosuch0"))
        // eth9 has no gateway, so its network has no identity yet.
        let anonymous = try pathctl(scenario, ["set-constrained", "eth9"])
        #expect(anonymous.errorOutput.contains("not identified yet"))
        let badKey = try pathctl(scenario, ["set-constrained", "--key", "lte:1"])
        #expect(badKey.errorOutput.contains("is not a network key"))
        let both = try pathctl(scenario, ["set-constrained", "wlan0", "--key", "wifi:x"])
        #expect(both.status == 64)
    }

    @Test func corruptPolicyFileIsKeptAsideAndReported() async throws {
        let namespace = try NetworkNamespace()
        defer { namespace.delete() }
        try Self.wifiUplink(namespace)
        let daemon = try Daemon(in: namespace, configuration: Self.configuration(ssid: "HomeNet"))
        defer { daemon.cleanUp() }
        try FileManager.default.createDirectory(atPath: daemon.stateDirectory, withIntermediateDirectories: true)
        let garbage = Data(#"{"version": 1, "networks": [{"key": "wifi:HomeNet", "constrained": true}, {"key": 7"#.utf8)
        try garbage.write(to: URL(filePath: daemon.stateDirectory + "/policy.json"))
        try daemon.start()

        // What could be salvaged is in force; the damaged bytes are kept under another name, untouched.
        let connection = try PathmondConnection(socketPath: daemon.socketPath)
        #expect(try connection.path().isConstrained)
        let status = try connection.status()
        #expect(status.policyProblem != nil)
        let kept = try FileManager.default.contentsOfDirectory(atPath: daemon.stateDirectory)
            .filter { $0.hasPrefix("policy.json.corrupt-") }
        #expect(kept.count == 1)
        #expect(try Data(contentsOf: URL(filePath: daemon.stateDirectory + "/" + kept[0])) == garbage)
        let output = try runCommand([product("pathctl"), "status", "--socket", daemon.socketPath]).output
        #expect(output.contains("Warning: the policy file"))
        #expect(daemon.log.contains("policy file damaged"))
    }
}
