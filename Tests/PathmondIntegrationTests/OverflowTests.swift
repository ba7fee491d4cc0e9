// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathMonitor
import Testing

/// ENOBUFS for real: a tiny receive buffer and two writers flooding the kernel with routes. The daemon must see
/// the loss, re-dump, say so in its log, and keep serving the right path.
@Suite(.serialized) struct OverflowTests {
    @Test func routeStormOverflowsAndTheDaemonConverges() async throws {
        let scenario = try Scenario.start(arguments: ["--receive-buffer", "4096"]) {
            try $0.addWiredUplink(routed: false)
        }
        defer { #expect(scenario.tearDown() == 0) }
        let log = scenario.client.log
        _ = try await log.nextPath { $0.unsatisfiedReason == .noDefaultRoute }

        // Two concurrent `ip -batch` writers, 20,000 host routes each, while the daemon is stopped (so the kernel
        // must drop notifications, however fast the machine), then the one change that matters.
        scenario.daemon.pause()
        let writers = (0..<2).map { writer in
            Task.detached {
                let commands = (0..<20_000).map { index in
                    "route add 10.\(100 + writer).\(index / 256).\(index % 256)/32 via 192.0.2.1 dev eth0"
                }
                try scenario.namespace.batch(commands)
            }
        }
        for writer in writers { try await writer.value }
        scenario.daemon.resume()
        try scenario.namespace.ip("route add default via 192.0.2.1 dev eth0")

        let satisfied = try await log.nextPath(timeout: .seconds(60)) { $0.status == .satisfied }
        #expect(satisfied.interfaceNames == ["eth0"])
        #expect(scenario.daemon.log.contains("ENOBUFS"), "the daemon should log that it re-dumped")
        #expect(scenario.daemon.isRunning)

        // Still following changes after the resync.
        try scenario.namespace.ip("route del default via 192.0.2.1 dev eth0")
        _ = try await log.nextPath { $0.unsatisfiedReason == .noDefaultRoute }
    }
}
