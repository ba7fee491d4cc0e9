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

    /// The hints' look-up of a few links among many: by index, in index order, those the tracker has.
    @Test func findsTheInterfacesOfTheIndexesAsked() {
        let links = (1...9).map { makeLink(Int32($0 * 3), "veth\($0)") }
        let tracker = PathTracker(state: usableState(links.map { usableIPv4($0, host: 2) }))
        #expect(tracker.interfaces(withIndexes: [27, 4, 3, 12]).map(\.link.name) == ["veth1", "veth4", "veth9"])
        #expect(tracker.interfaces(withIndexes: []).isEmpty)
        #expect(tracker.interfaces(withIndexes: [0, 28]).isEmpty)
        #expect(tracker.interfaces(withIndexes: InterfaceIndexes(links.map(\.index))) == tracker.interfaces)
    }

    /// Copies share one box until one changes: the hub's copy, taken out of its lock, must keep what it saw while
    /// the next change goes to the hub's own.
    @Test func aCopyKeepsWhatItSawWhileTheOtherChanges() {
        var tracker = connectedTracker()
        let copy = tracker
        let (path, interfaces, state, version) = (copy.path, copy.interfaces, copy.state, copy.interfacesVersion)
        #expect(tracker.apply([.linkRemoved(index: 2)]) == .unsatisfied(.noInterfaces))
        #expect(copy.path == path && copy.interfaces == interfaces && copy.state == state)
        #expect(copy.interfacesVersion == version && tracker.interfacesVersion != version)
        #expect(tracker.interfaces.isEmpty && !copy.interfaces.isEmpty)
        var changedCopy = copy
        #expect(changedCopy.apply([.linkRemoved(index: 2)]) != nil)
        #expect(copy.path == path, "changing a second copy leaves the first alone too")
    }

    @Test func aChangeThatLeavesThePathAloneReportsNothing() {
        var tracker = connectedTracker()
        let before = tracker.state
        #expect(tracker.apply([.addressAdded(makeAddress(2, "fe80::2", scope: .link))]) == nil)
        #expect(tracker.apply([.addressAdded(makeAddress(2, "2001:db8::9", tentative: true))]) == nil)
        #expect(tracker.apply([KernelEvent]()) == nil)
        #expect(tracker.state != before)
    }

    /// A flow's answers are not re-derived into interfaces (the tracker skips that); a probe's or a tunnel
    /// endpoint's are. Whatever the answer, the interfaces and the path after it are those derived from scratch.
    @Test(arguments: ["flow", "probe", "endpoint", "dropped probe"])
    func answersLeaveTheInterfacesAsDerivedFromScratch(answered: String) {
        let endpoint = RouteQuery(destination: ip("198.18.0.9"), uid: RouteQuery.systemUser)
        let flow = RouteQuery(destination: ip("198.51.100.7"), uid: 1000)
        var snapshot = tunnelOverTwoUplinks()
        snapshot.decisions = [
            .internet(.ipv4): .via(interfaceIndex: 2, gateway: ip("192.0.2.1")),
            endpoint: .via(interfaceIndex: 2, gateway: ip("192.0.2.1")),
        ]
        var tracker = PathTracker(state: KernelState(snapshot))
        let event: KernelEvent =
            switch answered {
            case "flow": .routeDecisions([flow: .via(interfaceIndex: 4, gateway: nil)])
            case "probe": .routeDecisions([.internet(.ipv4): .via(interfaceIndex: 4, gateway: ip("203.0.113.1"))])
            case "endpoint": .routeDecisions([endpoint: .via(interfaceIndex: 4, gateway: ip("203.0.113.1"))])
            default: .routeDecisions([:], dropped: [.internet(.ipv4)])
            }
        let before = tracker.interfaces
        _ = tracker.apply([event])
        let fromScratch = PathEvaluator().interfaces(in: tracker.state)
        #expect(tracker.interfaces == fromScratch)
        #expect(tracker.path == PathEvaluator().path(from: fromScratch))
        // Each but the flow's answer changes something the interfaces read: the test would see a skipped one.
        #expect((tracker.interfaces == before) == (answered == "flow"))
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
