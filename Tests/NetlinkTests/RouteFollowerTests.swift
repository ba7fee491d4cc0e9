import PathModel
import Testing

@testable import Netlink

/// The follower asks the kernel only what a change may have moved: nothing for a host route elsewhere, one
/// family's queries for that family's default, everything for a link; new flows cost their own queries only. The
/// kernel is a stand-in here that answers every query and counts them (the real look-ups are tested against the
/// kernel in RouteLookupBatchTests and the routing scenarios).
@Suite struct RouteFollowerTests {
    final class CountingLookup: RouteLookup {
        var asked: [RouteQuery] = []
        func decide(_ queries: some Collection<RouteQuery>) -> [RouteQuery: RouteDecision] {
            asked += queries
            return Dictionary(uniqueKeysWithValues: queries.map { ($0, .via(interfaceIndex: 2, gateway: nil)) })
        }
        func neighbour(_ gateway: GatewayKey) -> Neighbour? { nil }
        func resolve(_ gateway: GatewayKey) -> GatewayResolution { .requested }
    }

    let eth = Link(index: 2, name: "eth0", flags: [.up, .running], linkKind: "veth")
    let internet4 = RouteQuery.internet(.ipv4)
    let internet6 = RouteQuery.internet(.ipv6)

    private func started() -> (RouteFollower, CountingLookup) {
        let lookup = CountingLookup()
        let follower = RouteFollower(lookup: lookup)
        var snapshot = KernelSnapshot()
        snapshot.links = [eth]
        follower.restart(from: &snapshot)
        #expect(Set(lookup.asked) == [internet4, internet6], "a dump asks everything")
        #expect(snapshot.decisions.count == 2)
        lookup.asked = []
        return (follower, lookup)
    }

    @Test func aHostRouteElsewhereAsksNothing() {
        let (follower, lookup) = started()
        #expect(follower.follow([], routingChange: RoutingChange(prefix: [10, 9, 9, 9], length: 32)).isEmpty)
        #expect(follower.follow([], routingChange: RoutingChange()).isEmpty)
        #expect(lookup.asked.isEmpty)
    }

    @Test func aDefaultRouteAsksItsOwnFamilyOnly() {
        let (follower, lookup) = started()
        _ = follower.follow([], routingChange: RoutingChange(prefix: [0, 0, 0, 0], length: 0))
        #expect(lookup.asked == [internet4])
        lookup.asked = []
        _ = follower.follow([], routingChange: RoutingChange(prefix: [UInt8](repeating: 0, count: 16), length: 0))
        #expect(lookup.asked == [internet6])
    }

    @Test func aLinkAsksEverythingAndNewFlowsOnlyTheirOwn() {
        let (follower, lookup) = started()
        _ = follower.follow([.linkChanged(eth)], routingChange: .everything)
        #expect(Set(lookup.asked) == [internet4, internet6])
        lookup.asked = []
        let flow = RouteQuery(destination: IPAddress("192.0.2.7")!, source: IPAddress("10.0.0.2")!)
        guard case .routeDecisions(let decisions)? = follower.setFlowQueries([flow]) else {
            Issue.record("a new flow's answer is news")
            return
        }
        #expect(lookup.asked == [flow], "only the new query is asked")
        #expect(decisions.count == 3)
        lookup.asked = []
        // The flow's prefix is covered by this route; the internet's is not.
        _ = follower.follow([], routingChange: RoutingChange(prefix: [192, 0, 2, 0], length: 24))
        #expect(lookup.asked == [flow])
    }
}
