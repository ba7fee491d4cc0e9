// SPDX-License-Identifier: Apache-2.0
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
        /// Queries it leaves unanswered, as a kernel whose reply was lost.
        var silent: Set<RouteQuery> = []
        /// What it answers to every query.
        var answer = RouteDecision.via(interfaceIndex: 2, gateway: nil)
        func decide(_ queries: some Collection<RouteQuery>) -> RouteAnswers {
            asked += queries
            return queries.filter { !silent.contains($0) }.map { ($0, answer) }
        }
        func neighbour(_ gateway: GatewayKey) -> Neighbour? { nil }
        func resolve(_ gateway: GatewayKey) -> GatewayResolution { .requested }
        /// What a fresh read of the expiring routes finds.
        var expiring: [RouteExpiry]?
        func expiringRoutes() -> [RouteExpiry]? { expiring }
    }

    let eth = Link(index: 2, name: "eth0", flags: [.up, .running], linkKind: "veth")
    /// The internet's probes of each family (four addresses each).
    let internet4 = Set(RouteQuery.internetProbes(.ipv4))
    let internet6 = Set(RouteQuery.internetProbes(.ipv6))

    private func started() -> (RouteFollower, CountingLookup) {
        let lookup = CountingLookup()
        let follower = RouteFollower(lookup: lookup)
        var snapshot = KernelSnapshot()
        snapshot.links = [eth]
        follower.restart(from: &snapshot)
        #expect(Set(lookup.asked) == internet4.union(internet6), "a dump asks everything")
        #expect(snapshot.decisions.count == 8)
        lookup.asked = []
        return (follower, lookup)
    }

    /// An IPv6 default that expires in 3 s: nothing is asked before, its family's queries at the instant (with
    /// the slack), and the expiries are read afresh then (a router advertisement extends them silently).
    @Test func anExpiryAsksAgainAtItsInstant() {
        let lookup = CountingLookup()
        let follower = RouteFollower(lookup: lookup)
        var snapshot = KernelSnapshot()
        snapshot.links = [eth]
        let start = ContinuousClock.now
        let everywhere = IPAddress(bytes: [UInt8](repeating: 0, count: 16))!
        follower.restart(
            from: &snapshot, expiries: [RouteExpiry(address: everywhere, length: 0, centiseconds: 300)], now: start)
        lookup.asked = []
        #expect(follower.nextExpiry == start + .seconds(3) + RouteExpiries.slack)
        #expect(follower.expire(now: start + .seconds(1)) == nil)
        #expect(lookup.asked.isEmpty)
        lookup.expiring = [RouteExpiry(address: everywhere, length: 0, centiseconds: 200)]
        let due = start + .seconds(3) + RouteExpiries.slack
        _ = follower.expire(now: due)
        #expect(Set(lookup.asked) == internet6)
        #expect(follower.nextExpiry == due + .seconds(2) + RouteExpiries.slack)
    }

    /// A dump's reply: an IPv6 default with 2.5 s left, one without an expiry, then NLMSG_DONE.
    @Test func aRouteDumpsExpiriesAreRead() {
        func route(expires: Int32, sequence: UInt32) -> [UInt8] {
            let cacheinfo = RouteLookupMessage.attribute(
                12,
                [0, 0, 0, 0, 0, 0, 0, 0] + RouteLookupMessage.littleEndianBytes(expires)
                    + [UInt8](repeating: 0, count: 20))
            let body: [UInt8] = [10, 0, 0, 0, 254, 3, 0, 1, 0, 0, 0, 0] + cacheinfo
            return RouteLookupMessage.littleEndianBytes(UInt32(16 + body.count))
                + RouteLookupMessage.littleEndianBytes(RouteLookupMessage.newRoute)
                + RouteLookupMessage.littleEndianBytes(UInt16(2)) + RouteLookupMessage.littleEndianBytes(sequence)
                + [0, 0, 0, 0] + body
        }
        let done =
            RouteLookupMessage.littleEndianBytes(UInt32(20)) + RouteLookupMessage.littleEndianBytes(UInt16(3))
            + RouteLookupMessage.littleEndianBytes(UInt16(2)) + RouteLookupMessage.littleEndianBytes(UInt32(7))
            + [0, 0, 0, 0, 0, 0, 0, 0]
        let datagram =
            route(expires: 250, sequence: 7) + route(expires: 0, sequence: 7) + route(expires: 90, sequence: 6)
        let (expiries, finished) = RouteLookupMessage.expiries(inDumpReply: datagram + done, sequence: 7)
        #expect(finished)
        #expect(
            expiries == [
                RouteExpiry(address: IPAddress(bytes: [UInt8](repeating: 0, count: 16))!, length: 0, centiseconds: 250)
            ])
        #expect(!RouteLookupMessage.expiries(inDumpReply: datagram, sequence: 7).done)
    }

    /// A gateway's neighbour entry asks its family again when it moves between what route selection tells apart
    /// (absent, valid, failed, pending), and nothing while it moves within one or for a host no route uses.
    @Test func aGatewaysReachabilityAsksItsFamily() {
        let (follower, lookup) = started()
        let router = GatewayKey(interfaceIndex: 2, address: IPAddress("2001:db8::99")!)
        let host = GatewayKey(interfaceIndex: 2, address: IPAddress("2001:db8::7")!)
        _ = follower.follow(
            [.routeAdded(DefaultRoute(family: .ipv6, interfaceIndex: 2, gateway: router.address), replacing: false)],
            routingChange: RoutingChange())
        lookup.asked = []
        func note(_ key: GatewayKey, _ reachability: NeighbourReachability) -> [RouteQuery] {
            lookup.asked = []
            _ = follower.follow(
                [], routingChange: RoutingChange(neighbours: [NeighbourNote(gateway: key, reachability: reachability)]))
            return lookup.asked
        }
        #expect(Set(note(router, .failed)) == internet6)
        #expect(note(router, .failed).isEmpty)
        #expect(note(host, .failed).isEmpty)
        #expect(Set(note(router, .valid)) == internet6)
        #expect(note(router, .valid).isEmpty, "REACHABLE, STALE, DELAY and PROBE are one to route selection")
        #expect(Set(note(router, .absent)) == internet6)
    }

    /// A source-specific IPv6 default: the probes are unroutable without a source and routed from 2001:db8::2,
    /// so they are asked again from each usable IPv6 address and take the first routed answer; IPv4 is untouched.
    @Test func unroutedIPv6ProbesAreAskedFromEachSource() {
        final class SourceSpecific: RouteLookup {
            var asked: [RouteQuery] = []
            func decide(_ queries: some Collection<RouteQuery>) -> RouteAnswers {
                asked += queries
                return queries.map { query in
                    let routed = query.source == IPAddress("2001:db8::2")! || query.destination.family == .ipv4
                    return (query, routed ? .via(interfaceIndex: 2, gateway: nil) : .unroutable)
                }
            }
            func neighbour(_ gateway: GatewayKey) -> Neighbour? { nil }
            func resolve(_ gateway: GatewayKey) -> GatewayResolution { .requested }
        }
        let lookup = SourceSpecific()
        let follower = RouteFollower(lookup: lookup)
        var snapshot = KernelSnapshot()
        snapshot.links = [eth]
        snapshot.addresses = [
            InterfaceAddress(interfaceIndex: 2, address: IPAddress("2001:db8::2")!, prefixLength: 64),
            InterfaceAddress(interfaceIndex: 2, address: IPAddress("2001:db8:9::2")!, prefixLength: 64),
            InterfaceAddress(interfaceIndex: 2, address: IPAddress("fe80::2")!, prefixLength: 64, scope: .link),
        ]
        follower.restart(from: &snapshot)
        for probe in internet6 { #expect(snapshot.decisions[probe] == .via(interfaceIndex: 2, gateway: nil)) }
        #expect(lookup.asked.filter { $0.source != nil }.count == 8, "four probes from two global addresses")
        #expect(!lookup.asked.contains { $0.destination.family == .ipv4 && $0.source != nil })
    }

    /// An address renewed with new lifetimes (a lease, a router advertisement) is what the model has already: it is
    /// not handed on, and nothing is asked (a thousand flows were asked again at every renewal). A new address, or
    /// one that passes DAD, asks everything, as a link does.
    @Test func aRenewedAddressAsksNothing() {
        let (follower, lookup) = started()
        let tentative = InterfaceAddress(
            interfaceIndex: 2, address: IPAddress("2001:db8::10")!, prefixLength: 64, isTentative: true)
        var usable = tentative
        usable.isTentative = false
        func follow(_ address: InterfaceAddress) -> (handedOn: [KernelEvent], asked: Set<RouteQuery>) {
            lookup.asked = []
            var batch: [KernelEvent] = [.addressAdded(address)]
            let kept = follower.follow(appendingTo: &batch, routingChange: .addressMessage)
            return (Array(batch[..<kept]), Set(lookup.asked))
        }
        #expect(follow(tentative) == ([.addressAdded(tentative)], internet4.union(internet6)))
        #expect(follow(tentative) == ([], []))
        #expect(follow(usable) == ([.addressAdded(usable)], internet4.union(internet6)))
        #expect(follow(usable) == ([], []))
    }

    @Test func aHostRouteElsewhereAsksNothing() {
        let (follower, lookup) = started()
        #expect(follower.follow([], routingChange: RoutingChange(prefix: [10, 9, 9, 9], length: 32)).isEmpty)
        #expect(follower.follow([], routingChange: RoutingChange()).isEmpty)
        #expect(lookup.asked.isEmpty)
    }

    /// A query the kernel left unanswered is asked again after any change, a host route elsewhere included, until
    /// it has an answer; then such a route asks nothing again.
    @Test func aQueryWithoutAnAnswerIsAskedAgainUntilAnswered() {
        let (follower, lookup) = started()
        let flow = RouteQuery(destination: IPAddress("192.0.2.7")!, source: IPAddress("10.0.0.2")!)
        let other = RouteQuery(destination: IPAddress("198.51.100.9")!, source: IPAddress("10.0.0.2")!)
        lookup.silent = [flow]
        _ = follower.changeFlowQueries(FlowQueryChange(added: [flow, other]))
        #expect(Set(lookup.asked) == [flow, other] && follower.decisions[flow] == nil)
        let elsewhere = RoutingChange(prefix: [10, 9, 9, 9], length: 32)
        for _ in 0..<2 {
            lookup.asked = []
            _ = follower.follow([], routingChange: elsewhere)
            #expect(lookup.asked == [flow], "only the unanswered query")
        }
        lookup.silent = []
        lookup.asked = []
        _ = follower.follow([], routingChange: elsewhere)
        #expect(lookup.asked == [flow] && follower.decisions[flow] != nil)
        lookup.asked = []
        _ = follower.follow([], routingChange: elsewhere)
        #expect(lookup.asked.isEmpty)
        // A new flow lacks an answer until its own is asked.
        let third = RouteQuery(destination: IPAddress("203.0.113.5")!, source: IPAddress("10.0.0.2")!)
        lookup.silent = [third]
        _ = follower.changeFlowQueries(FlowQueryChange(added: [third]))
        lookup.asked = []
        _ = follower.follow([], routingChange: elsewhere)
        #expect(lookup.asked == [third])
    }

    @Test func aDefaultRouteAsksItsOwnFamilyOnly() {
        let (follower, lookup) = started()
        _ = follower.follow([], routingChange: RoutingChange(prefix: [0, 0, 0, 0], length: 0))
        #expect(Set(lookup.asked) == internet4)
        lookup.asked = []
        _ = follower.follow([], routingChange: RoutingChange(prefix: [UInt8](repeating: 0, count: 16), length: 0))
        #expect(Set(lookup.asked) == internet6)
    }

    @Test func aLinkAsksEverythingAndNewFlowsOnlyTheirOwn() {
        let (follower, lookup) = started()
        _ = follower.follow([.linkChanged(eth)], routingChange: .everything)
        #expect(Set(lookup.asked) == internet4.union(internet6))
        lookup.asked = []
        let flow = RouteQuery(destination: IPAddress("192.0.2.7")!, source: IPAddress("10.0.0.2")!)
        guard
            case .routeDecisions(let decisions, let dropped)? = follower.changeFlowQueries(
                FlowQueryChange(added: [flow]))
        else {
            Issue.record("a new flow's answer is news")
            return
        }
        #expect(lookup.asked == [flow], "only the new query is asked")
        // The event carries what changed, the follower keeps the whole table.
        #expect(Array(decisions.keys) == [flow] && dropped.isEmpty)
        #expect(follower.decisions.count == 9)
        lookup.asked = []
        // The flow's prefix is covered by this route; the internet's is not.
        _ = follower.follow([], routingChange: RoutingChange(prefix: [192, 0, 2, 0], length: 24))
        #expect(lookup.asked == [flow])
    }

    /// A flow's answer leaves with its client: the event that says so names the query as dropped, so that the
    /// model forgets it too (the events carry changes, not the table, which would otherwise keep every flow ever
    /// watched).
    @Test func aFlowGoneIsDroppedFromTheAnswers() {
        let (follower, _) = started()
        _ = follower.follow([.linkChanged(eth)], routingChange: .everything)
        let flow = RouteQuery(destination: IPAddress("192.0.2.7")!, source: IPAddress("10.0.0.2")!)
        _ = follower.changeFlowQueries(FlowQueryChange(added: [flow]))
        #expect(follower.decisions[flow] != nil)
        // Nothing to ask, but the drop is news.
        let event = follower.changeFlowQueries(FlowQueryChange(removed: [flow]))
        #expect(follower.decisions[flow] == nil && follower.decisions.count == 8)
        guard case .routeDecisions(let answers, let dropped)? = event else {
            Issue.record("a dropped flow's answer is news")
            return
        }
        #expect(answers.isEmpty && dropped == [flow])
        var model = KernelState()
        model.apply(.routeDecisions([flow: .unroutable]))
        model.apply(.routeDecisions(answers, dropped: dropped))
        #expect(model.decisions.isEmpty)
    }

    /// Each event carries what changed since the one before, whether the one before is still held somewhere (the
    /// hub reading it) or let go (its tables then emptied in place for the next): never an earlier event's answers
    /// or drops again.
    @Test(arguments: [true, false]) func eachEventCarriesOnlyItsOwnChanges(holdingEvents: Bool) {
        let (follower, lookup) = started()
        var held: [KernelEvent] = []
        /// The event's answers and drops, by destination.
        func next(_ change: FlowQueryChange) -> [String] { described(follower.changeFlowQueries(change)) }
        func described(_ event: KernelEvent?) -> [String] {
            guard let event else { return ["no event"] }
            if holdingEvents { held.append(event) }
            guard case .routeDecisions(let answers, let dropped) = event else { return ["another event"] }
            return answers.keys.map { "answer \($0.destination)" }.sorted()
                + dropped.map { "dropped \($0.destination)" }.sorted()
        }
        let first = RouteQuery(destination: IPAddress("192.0.2.7")!, source: IPAddress("10.0.0.2")!)
        let second = RouteQuery(destination: IPAddress("198.51.100.9")!, source: IPAddress("10.0.0.2")!)
        #expect(next(FlowQueryChange(added: [first])) == ["answer 192.0.2.7"])
        #expect(next(FlowQueryChange(added: [second])) == ["answer 198.51.100.9"], "the first answer went before")
        #expect(next(FlowQueryChange(removed: [first])) == ["dropped 192.0.2.7"], "the second answer went before")
        #expect(next(FlowQueryChange(added: [first])) == ["answer 192.0.2.7"], "the drop went before")
        // A change the kernel answers anew (IPv6's default route moved): its family's probes alone.
        lookup.answer = .unroutable
        let ipv6Default = RoutingChange(prefix: [UInt8](repeating: 0, count: 16), length: 0)
        #expect(
            described(follower.follow([], routingChange: ipv6Default).last)
                == internet6.map { "answer \($0.destination)" }.sorted(), "the flow's answer went before")
        #expect(held.count == (holdingEvents ? 5 : 0))
    }

    /// A thousand flows' queries: a change asks the internet's probes (root's and a watching user's) with the
    /// first slice of flows at once; the rest wait a slice per turn of the loop, so the first flows' answers do
    /// not wait for the last ones'. Queries dropped meanwhile are not asked.
    @Test func manyFlowsAreAskedASliceAtATime() {
        let (follower, lookup) = started()
        let userProbes = Set(RouteQuery.internetProbes(user: 1000))
        let flows = (0..<1000).map { index in
            RouteQuery(
                destination: IPAddress(bytes: [198, 51, UInt8(index / 250), UInt8(index % 250)])!,
                source: IPAddress("10.0.0.2")!)
        }
        _ = follower.changeFlowQueries(FlowQueryChange(added: Set(flows).union(userProbes)))
        let first = Set(lookup.asked)
        #expect(first.isSuperset(of: userProbes), "a user's probes are asked with the first slice")
        #expect(first.subtracting(userProbes).count == FlowSlices.size)
        #expect(follower.hasPendingSlices)
        var asked = first
        var slices = 1
        while follower.hasPendingSlices {
            lookup.asked = []
            _ = follower.askNextSlice()
            #expect(lookup.asked.count <= FlowSlices.size)
            asked.formUnion(lookup.asked)
            slices += 1
        }
        #expect(asked == Set(flows).union(userProbes), "every query is asked once")
        #expect(slices == (1000 + FlowSlices.size - 1) / FlowSlices.size)

        // A link change asks everything again: the probes at once, flows in slices; a flow gone by the time its
        // slice comes is not asked.
        lookup.asked = []
        _ = follower.follow([.linkChanged(eth)], routingChange: .everything)
        #expect(Set(lookup.asked).isSuperset(of: internet4.union(internet6).union(userProbes)))
        #expect(follower.hasPendingSlices)
        let kept = Set(flows.prefix(300)).union(userProbes)
        _ = follower.changeFlowQueries(FlowQueryChange(from: Set(flows).union(userProbes), to: kept))
        lookup.asked = []
        while follower.hasPendingSlices { _ = follower.askNextSlice() }
        #expect(Set(lookup.asked).isSubset(of: kept), "dropped flows are not asked")
    }

    /// A change while a round of slices is under way asks no flow at once: the flows already asked in the round go
    /// behind those still waiting, and the rest of the round asks every flow exactly once. The waiting set the
    /// model sees moves by position and stays the same round object.
    @Test func aChangeDuringARoundQueuesBehindIt() {
        let (follower, lookup) = started()
        let flows = (0..<500).map { index in
            RouteQuery(
                destination: IPAddress(bytes: [198, 51, UInt8(index / 250), UInt8(index % 250)])!,
                source: IPAddress("10.0.0.2")!)
        }
        _ = follower.changeFlowQueries(FlowQueryChange(added: Set(flows)))
        _ = follower.askNextSlice()
        let waiting = follower.awaitingQueries
        let askedSoFar = flows.filter { !waiting.contains($0) }
        #expect(askedSoFar.count == 2 * FlowSlices.size)
        _ = follower.askNextSlice()
        #expect(follower.awaitingQueries != waiting, "a slice taken moves the waiting set")
        lookup.asked = []
        _ = follower.follow([], routingChange: RoutingChange(prefix: [0, 0, 0, 0], length: 0))
        #expect(Set(lookup.asked) == internet4, "no flow is asked before those already waiting")
        #expect(flows.allSatisfy(follower.awaitingQueries.contains), "every flow waits again")
        lookup.asked = []
        while follower.hasPendingSlices { _ = follower.askNextSlice() }
        #expect(lookup.asked.count == flows.count && Set(lookup.asked) == Set(flows), "each flow once")
        #expect(follower.awaitingQueries.isEmpty && follower.awaitingQueries == AwaitingQueries())
    }
}
