// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathMonitor
import PathProtocol
import Testing

/// A routing rule that changes where the kernel sends the next packet is recorded as a rule change in the history,
/// not as a route change: the rule is what a person must look at.
@Suite(.serialized) struct RuleCauseTests {
    @Test func aRuleThatMovesThePathIsRecordedAsARule() async throws {
        let (scenario, holder) = try VPNScenarioTests.start()
        defer {
            holder.release()
            #expect(scenario.tearDown() == 0)
        }
        let namespace = scenario.namespace
        let log = scenario.client.log
        _ = try await log.nextPath { $0.interfaceNames == ["eth0"] }
        try namespace.ip("route add default dev wg0 table 51820")
        _ = try await log.nextPath { $0.interfaceNames == ["eth0", "wg0"] }
        let history = { try PathmondConnection(socketPath: scenario.daemon.socketPath).history() }
        #expect(try history().last?.cause.kernelTables == ["route"])

        try namespace.ip("rule add not fwmark 51820 table 51820")
        _ = try await log.nextPath { $0.interfaceNames.first == "wg0" }
        let entry = try #require(try history().last)
        #expect(entry.cause.kind == "kernel")
        #expect(entry.cause.kernelTables == ["rule"])
        #expect(entry.after.interfaces.first == "wg0")

        try namespace.ip("rule del not fwmark 51820 table 51820")
        _ = try await log.nextPath { $0.interfaceNames.first == "eth0" }
        #expect(try history().last?.cause.kernelTables == ["rule"])
    }
}
