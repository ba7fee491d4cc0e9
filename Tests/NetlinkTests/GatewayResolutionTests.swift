// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

@testable import Netlink

/// A gateway without a known link-layer address is asked to be resolved, and asked again with a growing interval
/// while it stays unknown (a router that did not answer the first time, or came up late); the waiting ends when
/// the kernel learns it by any means. A kernel that refuses (no CAP_NET_ADMIN) is reported once and not asked again.
@Suite struct GatewayResolutionTests {
    final class ResolvingLookup: RouteLookup {
        var resolved: [GatewayKey] = []
        var answer = GatewayResolution.requested
        var known: Neighbour?
        var asked: [RouteQuery] = []
        func decide(_ queries: some Collection<RouteQuery>) -> RouteAnswers {
            asked += queries
            return []
        }
        func neighbour(_ gateway: GatewayKey) -> Neighbour? { known }
        func resolve(_ gateway: GatewayKey) -> GatewayResolution {
            resolved.append(gateway)
            return answer
        }
    }

    let eth = Link(index: 2, name: "eth0", flags: [.up, .running], linkKind: "veth")
    let gateway = IPAddress("192.0.2.1")!
    var key: GatewayKey { GatewayKey(interfaceIndex: 2, address: gateway) }
    var route: DefaultRoute { DefaultRoute(family: .ipv4, interfaceIndex: 2, gateway: gateway) }
    let start = ContinuousClock.now

    private func started(_ lookup: ResolvingLookup) -> RouteFollower {
        let follower = RouteFollower(lookup: lookup)
        var snapshot = KernelSnapshot()
        snapshot.links = [eth]
        follower.restart(from: &snapshot, now: start)
        _ = follower.follow([.routeAdded(route, replacing: false)], routingChange: RoutingChange(), now: start)
        return follower
    }

    @Test func anUnansweredGatewayIsAskedAgainWithAGrowingInterval() {
        let lookup = ResolvingLookup()
        let follower = started(lookup)
        #expect(lookup.resolved == [key])
        var due = start
        for interval in [1, 2, 4, 8, 16, 32, 64, 64] {
            #expect(follower.nextResolveRetry == due + .seconds(interval))
            // Not before it is due.
            #expect(follower.retryResolving(now: due + .seconds(interval) - .milliseconds(1)).isEmpty)
            #expect(lookup.resolved.count == 1)
            due += .seconds(interval)
            lookup.resolved = []
            #expect(follower.retryResolving(now: due).isEmpty)
            #expect(lookup.resolved == [key])
        }
    }

    /// An IPv6 router whose entry FAILED is not asked again: the request would turn it INCOMPLETE, which the
    /// kernel's router selection takes for reachable. An IPv4 gateway is (multipath legs skip INCOMPLETE too).
    @Test func aFailedIPv6RouterIsNotAskedAgain() {
        let lookup = ResolvingLookup()
        let follower = RouteFollower(lookup: lookup)
        var snapshot = KernelSnapshot()
        snapshot.links = [eth]
        follower.restart(from: &snapshot, now: start)
        let router = GatewayKey(interfaceIndex: 2, address: IPAddress("2001:db8::99")!)
        let routes: [KernelEvent] = [
            .routeAdded(DefaultRoute(family: .ipv6, interfaceIndex: 2, gateway: router.address), replacing: false),
            .routeAdded(route, replacing: false),
        ]
        _ = follower.follow(routes, routingChange: RoutingChange(), now: start)
        #expect(Set(lookup.resolved) == [router, key])
        let failed = [router, key].map { NeighbourNote(gateway: $0, reachability: .failed) }
        _ = follower.follow([], routingChange: RoutingChange(neighbours: failed), now: start)
        lookup.resolved = []
        #expect(follower.retryResolving(now: start + .seconds(1)).isEmpty)
        #expect(lookup.resolved == [key])
    }

    /// A request to resolve turns the entry INCOMPLETE without a notification, which moves an IPv4 multipath leg
    /// with `fib_multipath_use_neigh`: the gateway's family is asked again right after it.
    @Test func aRequestToResolveAsksItsFamilyAgain() {
        let lookup = ResolvingLookup()
        let follower = RouteFollower(lookup: lookup)
        var snapshot = KernelSnapshot()
        snapshot.links = [eth]
        follower.restart(from: &snapshot, now: start)
        lookup.asked = []
        _ = follower.follow([.routeAdded(route, replacing: false)], routingChange: RoutingChange(), now: start)
        #expect(lookup.resolved == [key])
        // (This stand-in answers nothing, so the unanswered IPv6 query comes along.)
        #expect(lookup.asked.contains(RouteQuery.internet(.ipv4)))
        // Asked again while it is still being resolved: nothing new to learn.
        lookup.asked = []
        _ = follower.retryResolving(now: start + .seconds(1))
        #expect(lookup.asked.isEmpty)
    }

    @Test func theWaitEndsWhenTheKernelLearnsTheGatewayByAnyMeans() {
        let lookup = ResolvingLookup()
        let follower = started(lookup)
        let neighbour = Neighbour(interfaceIndex: 2, address: gateway, linkLayerAddress: "02:00:00:00:00:01")
        // Learnt from other traffic: the kernel's notification reaches the follower with the batch.
        _ = follower.follow([.neighbourChanged(neighbour)], routingChange: RoutingChange(), now: start)
        #expect(follower.nextResolveRetry == nil)

        // Or known by the time it is asked again, without a notification the model kept.
        let other = ResolvingLookup()
        let quiet = started(other)
        other.known = neighbour
        #expect(quiet.retryResolving(now: start + .seconds(1)) == [.neighbourChanged(neighbour)])
        #expect(quiet.nextResolveRetry == nil)
        #expect(other.resolved.count == 1)
    }

    @Test func aRefusalIsReportedOnceAndNotAskedAgain() {
        let lookup = ResolvingLookup()
        lookup.answer = .refused(errno: 1)
        let follower = started(lookup)
        #expect(follower.takeRefusal() == 1)
        #expect(follower.takeRefusal() == nil)
        #expect(follower.nextResolveRetry == nil)
        // Another gateway: not asked either (the refusal does not go away by asking).
        let second = DefaultRoute(family: .ipv4, metric: 5, interfaceIndex: 2, gateway: IPAddress("192.0.2.2")!)
        _ = follower.follow([.routeAdded(second, replacing: false)], routingChange: RoutingChange(), now: start)
        #expect(lookup.resolved == [key])
    }
}
