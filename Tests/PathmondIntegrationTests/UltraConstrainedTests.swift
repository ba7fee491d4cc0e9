// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathMonitor
import PathProtocol
import Testing

/// An ultra-constrained network end to end: `pathctl set-ultra-constrained` hides it from a subscriber that did not
/// opt in, while a client that opted in and `pathctl status` see it, constrained.
@Suite(.serialized) struct UltraConstrainedIntegrationTests {
    static let configuration = """
        [interface wlan*]
        type = wifi
        network = wifi:Sky
        """

    static func wifiUplink(_ namespace: NetworkNamespace) throws {
        try namespace.addVeth("wlan0", peer: "wlan0-peer")
        try namespace.ip("address add 198.51.100.10/24 dev wlan0")
        try namespace.ip("route add default via 198.51.100.1 dev wlan0")
    }

    func pathctl(_ scenario: Scenario, _ arguments: [String]) throws -> CommandResult {
        try runCommand([product("pathctl")] + arguments + ["--socket", scenario.daemon.socketPath], check: false)
    }

    @Test func aMarkedNetworkLeavesThePathOfClientsThatDidNotOptIn() async throws {
        let scenario = try Scenario.start(configuration: Self.configuration, prepare: Self.wifiUplink)
        defer { #expect(scenario.tearDown() == 0) }
        let log = scenario.client.log
        _ = try await log.nextPath { $0.status == .satisfied }

        let set = try pathctl(scenario, ["set-ultra-constrained", "wlan0"])
        #expect(set.status == 0, "\(set.errorOutput)")
        #expect(set.output.contains("wifi:Sky"))
        // The subscriber sent no requirements: the interface is gone for it, as if it did not exist.
        let hidden = try await log.nextPath { $0.status == .unsatisfied }
        #expect(hidden.unsatisfiedReason == .noInterfaces)

        let connection = try PathmondConnection(socketPath: scenario.daemon.socketPath)
        let optedIn = try connection.path(parameters: PathParameters(allowsUltraConstrained: true))
        #expect(optedIn.status == .satisfied && optedIn.isUltraConstrained && optedIn.isConstrained)
        #expect(optedIn.availableInterfaces.first?.isUltraConstrained == true)
        #expect(try connection.networks().first { $0.key == "wifi:Sky" }?.ultraConstrained == true)
        #expect(try connection.interfaces().first { $0.name == "wlan0" }?.isUltraConstrained == true)

        // pathctl speaks for the system: it sees the network, constrained; --no-ultra-constrained looks as an app.
        let status = try pathctl(scenario, ["status", "--json"])
        #expect(status.status == 0, "\(status.errorOutput)")
        let document = try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any]
        let path = document?["path"] as? [String: Any]
        #expect(path?["status"] as? String == "satisfied")
        #expect(path?["isUltraConstrained"] as? Bool == true)
        #expect(path?["isConstrained"] as? Bool == true)
        let table = try pathctl(scenario, ["status", "--no-pager"])
        #expect(table.output.contains("constrained (ultra)"), "\(table.output)")
        let asAnApp = try pathctl(scenario, ["status", "--no-ultra-constrained", "--no-pager"])
        #expect(asAnApp.output.contains("unsatisfied"), "\(asAnApp.output)")
        #expect(try pathctl(scenario, ["check", "--unmetered"]).status == 3)

        // Off clears the mark and the subscriber sees the network again.
        #expect(try pathctl(scenario, ["set-ultra-constrained", "wlan0", "--off"]).status == 0)
        let back = try await log.nextPath { $0.status == .satisfied }
        #expect(!back.isConstrained && !back.isUltraConstrained)
    }
}
