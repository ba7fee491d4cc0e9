// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PathModel

/// Derive, diff, then notify: the tracker reports a path only when it differs from the last one.
@Suite struct PathTrackerTests {
    let eth = makeLink(2, "eth0")

    func connectedTracker() -> PathTracker {
        PathTracker(state: usableState([usableIPv4(eth, host: 2)]))
    }

    @Test func startsWithThePathOfItsState() {
        #expect(PathTracker().path == .unsatisfied(.noInterfaces))
        #expect(connectedTracker().path.status == .satisfied)
    }

    @Test func aChangeThatLeavesThePathAloneReportsNothing() {
        var tracker = connectedTracker()
        let before = tracker.state
        #expect(tracker.apply([.addressAdded(makeAddress(2, "fe80::2", scope: .link))]) == nil)
        #expect(tracker.apply([.addressAdded(makeAddress(2, "2001:db8::9", tentative: true))]) == nil)
        #expect(tracker.apply([KernelEvent]()) == nil)
        #expect(tracker.state != before)
    }

    @Test func aChangeOfThePathIsReportedOnce() {
        var tracker = connectedTracker()
        let down = KernelEvent.linkChanged(makeLink(2, "eth0", flags: []))
        let reported = tracker.apply([down])
        #expect(reported == .unsatisfied(.interfacesDown))
        #expect(tracker.path == .unsatisfied(.interfacesDown))
        #expect(tracker.apply([down]) == nil)
    }

    @Test func aBatchIsJudgedAsAWhole() {
        var tracker = connectedTracker()
        // Down and straight back up with the route restored: the same path, so nothing to publish.
        let events: [KernelEvent] = [
            .linkChanged(makeLink(2, "eth0", flags: [])), .linkChanged(eth),
            .routeAdded(makeRoute(2, via: "10.2.0.1"), replacing: false),
        ]
        #expect(tracker.apply(events) == nil)
    }

    @Test func theLinkDownFlushIsVisibleAfterLinkUp() {
        // The kernel does not restore a hand-added IPv4 default route on link up (KERNEL-NOTES).
        var tracker = connectedTracker()
        _ = tracker.apply([.linkChanged(makeLink(2, "eth0", flags: []))])
        #expect(tracker.apply([.linkChanged(eth)]) == .unsatisfied(.noDefaultRoute))
    }

    @Test func aNewClassifierIsReportedOnlyIfItChangesThePath() {
        var tracker = connectedTracker()
        #expect(tracker.setEvaluator(PathEvaluator()) == nil)
        let cellular = PathEvaluator(
            classifier: Classifier(overrides: [InterfaceOverride(pattern: "eth*", kind: .cellular)]))
        let reported = tracker.setEvaluator(cellular)
        #expect(reported?.isExpensive == true)
        #expect(reported?.availableInterfaces.map(\.kind) == [.cellular])
        #expect(tracker.setEvaluator(cellular) == nil)
    }

    @Test func interfacesMatchTheEvaluator() {
        let tracker = connectedTracker()
        #expect(tracker.interfaces == PathEvaluator().interfaces(in: tracker.state))
    }
}
