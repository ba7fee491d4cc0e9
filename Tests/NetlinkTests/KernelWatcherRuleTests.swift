// SPDX-License-Identifier: Apache-2.0
import NetlinkTestSupport
import PathModel
import Testing

@testable import Netlink

/// Routing rules are not modelled, but their changes are reported (one `.rulesChanged` per run of rule messages in
/// a batch), so that a path change they cause is named after them.
@Suite struct KernelWatcherRuleTests {
    @Test func ruleChangesAreReportedOncePerRun() async throws {
        try await withTestNamespace { namespace in
            var stepper = try await BatchStepper.afterFirstDump(of: namespace)
            defer { stepper.stopWatching() }
            try namespace.ip("rule add fwmark 7 table 7")
            try namespace.ip("-6 rule add fwmark 7 table 7")
            try namespace.ip("rule del fwmark 7 table 7")
            let batch = try await stepper.next { $0.events.contains(.rulesChanged) }
            #expect(batch.events.filter { $0 == .rulesChanged }.count == 1)
            let others = batch.events.filter {
                if case .routeDecisions = $0 { return false }
                return $0 != .rulesChanged
            }
            #expect(others.isEmpty, "rules bring nothing else but the kernel's decisions")
        }
    }
}
