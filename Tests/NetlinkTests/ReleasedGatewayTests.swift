// SPDX-License-Identifier: Apache-2.0
import CNetlink
import Glibc
import PathModel
import Testing

@testable import Netlink

/// A route that comes back through the gateway it left by finds the gateway's entry where the follower kept it
/// when the model released it, without asking the kernel again, as long as nothing said the entry changed or went;
/// the kernel's news of it while the route is away is followed, and anything about its link makes it ask again.
@Suite struct ReleasedGatewayTests {
    final class CountingLookup: RouteLookup {
        var neighbourAsked: [GatewayKey] = []
        var known: Neighbour?
        func decide(_ queries: some Collection<RouteQuery>) -> RouteAnswers { [] }
        func neighbour(_ gateway: GatewayKey) -> Neighbour? {
            neighbourAsked.append(gateway)
            return known
        }
        func resolve(_ gateway: GatewayKey) -> GatewayResolution { .requested }
    }

    let eth = Link(index: 2, name: "eth0", flags: [.up, .running], linkKind: "veth")
    let gateway = IPAddress("192.0.2.1")!
    var key: GatewayKey { GatewayKey(interfaceIndex: 2, address: gateway) }
    var route: DefaultRoute { DefaultRoute(family: .ipv4, interfaceIndex: 2, gateway: gateway) }
    var first: Neighbour { Neighbour(interfaceIndex: 2, address: gateway, linkLayerAddress: "02:00:00:00:00:01") }
    var second: Neighbour { Neighbour(interfaceIndex: 2, address: gateway, linkLayerAddress: "02:00:00:00:00:02") }

    /// A follower whose route came through the gateway (resolved by asking the kernel) and went again.
    private func afterTheRouteWent(_ lookup: CountingLookup) -> RouteFollower {
        let follower = RouteFollower(lookup: lookup)
        var snapshot = KernelSnapshot()
        snapshot.links = [eth]
        follower.restart(from: &snapshot)
        lookup.known = first
        let added = follower.follow([.routeAdded(route, replacing: false)], routingChange: RoutingChange())
        #expect(added.contains(.neighbourChanged(first)))
        _ = follower.follow([.routeRemoved(route)], routingChange: RoutingChange())
        lookup.neighbourAsked = []
        lookup.known = nil
        return follower
    }

    private func routeBack(_ follower: RouteFollower, after events: [KernelEvent] = []) -> [KernelEvent] {
        follower.follow(events + [.routeAdded(route, replacing: false)], routingChange: RoutingChange())
    }

    @Test func theReleasedEntryIsUsedWithoutAskingTheKernel() {
        let lookup = CountingLookup()
        let follower = afterTheRouteWent(lookup)
        #expect(routeBack(follower).contains(.neighbourChanged(first)))
        #expect(lookup.neighbourAsked.isEmpty)
        // Taken back into the model: the next return of the route, after it went again, is kept the same way.
        _ = follower.follow([.routeRemoved(route)], routingChange: RoutingChange())
        #expect(routeBack(follower).contains(.neighbourChanged(first)))
        #expect(lookup.neighbourAsked.isEmpty)
    }

    @Test func aChangeAnnouncedWhileTheRouteWasAwayIsFollowed() {
        let lookup = CountingLookup()
        let follower = afterTheRouteWent(lookup)
        _ = follower.follow([.neighbourChanged(second)], routingChange: RoutingChange())
        let back = routeBack(follower)
        #expect(back.contains(.neighbourChanged(second)))
        #expect(!back.contains(.neighbourChanged(first)))
        #expect(lookup.neighbourAsked.isEmpty)
    }

    /// In the same batch as the route's return, in either order with the release.
    @Test func aChangeInTheSameBatchIsFollowed() {
        let lookup = CountingLookup()
        let follower = afterTheRouteWent(lookup)
        #expect(routeBack(follower, after: [.neighbourChanged(second)]).contains(.neighbourChanged(second)))

        let other = CountingLookup()
        let again = afterTheRouteWent(other)
        _ = routeBack(again)
        let batch: [KernelEvent] = [
            .routeRemoved(route), .neighbourChanged(second), .routeAdded(route, replacing: false),
        ]
        _ = again.follow(batch, routingChange: RoutingChange())
        _ = again.follow([.routeRemoved(route)], routingChange: RoutingChange())
        #expect(routeBack(again).contains(.neighbourChanged(second)))
        #expect(other.neighbourAsked.isEmpty)
    }

    @Test func anEntryTheKernelDroppedIsAskedFor() {
        let lookup = CountingLookup()
        let follower = afterTheRouteWent(lookup)
        _ = follower.follow([.neighbourRemoved(interfaceIndex: 2, address: gateway)], routingChange: RoutingChange())
        lookup.known = second
        #expect(routeBack(follower).contains(.neighbourChanged(second)))
        #expect(lookup.neighbourAsked == [key])
    }

    /// The kernel flushes a link's entries when it goes down, loses its carrier or changes its address.
    @Test func anyNewsOfTheLinkMakesItAskAgain() {
        for news: KernelEvent in [
            .linkChanged(Link(index: 2, name: "eth0", flags: [.up], linkKind: "veth")),
            .linkChanged(
                Link(
                    index: 2, name: "eth0", flags: [.up, .running], linkKind: "veth",
                    hardwareAddress: "02:00:00:00:00:99")),
        ] {
            let lookup = CountingLookup()
            let follower = afterTheRouteWent(lookup)
            lookup.known = second
            #expect(routeBack(follower, after: [news]).contains(.neighbourChanged(second)), "\(news)")
            #expect(lookup.neighbourAsked == [key], "\(news)")
        }
    }

    /// A dump starts over from what the kernel lists, and lost neighbour notifications leave nothing to trust.
    @Test func aDumpOrLostNotificationsForgetTheReleased() {
        let lookup = CountingLookup()
        let follower = afterTheRouteWent(lookup)
        var snapshot = KernelSnapshot()
        snapshot.links = [eth]
        follower.restart(from: &snapshot)
        _ = routeBack(follower)
        #expect(lookup.neighbourAsked == [key])

        let other = CountingLookup()
        let overflowed = afterTheRouteWent(other)
        var change = RoutingChange()
        var message = Self.neighbourMessage(index: 3, address: [198, 51, 100, 7])
        for _ in 0...RoutingChange.maximumNeighbours {
            message.withUnsafeMutableBytes { change.note($0.baseAddress!.assumingMemoryBound(to: nlmsghdr.self)) }
        }
        #expect(change.neighboursOverflowed)
        _ = overflowed.follow([], routingChange: change)
        _ = routeBack(overflowed)
        #expect(other.neighbourAsked == [key])
    }

    /// An RTM_NEWNEIGH for a reachable IPv4 neighbour.
    private static func neighbourMessage(index: Int32, address: [UInt8]) -> [UInt8] {
        var body = [UInt8](repeating: 0, count: MemoryLayout<ndmsg>.size)
        body[0] = UInt8(AF_INET)
        withUnsafeBytes(of: index.littleEndian) { body.replaceSubrange(4..<8, with: $0) }
        withUnsafeBytes(of: UInt16(NUD_REACHABLE).littleEndian) { body.replaceSubrange(8..<10, with: $0) }
        body += RouteLookupMessage.attribute(UInt16(NDA_DST), address)
        var message = RouteLookupMessage.littleEndianBytes(UInt32(16 + body.count))
        message += RouteLookupMessage.littleEndianBytes(UInt16(RTM_NEWNEIGH))
        message += [UInt8](repeating: 0, count: 10)
        return message + body
    }

    /// A bounded few are kept: a LAN whose routes come and go through many gateways costs a bounded table.
    @Test func theReleasedAreBounded() {
        let lookup = CountingLookup()
        let follower = RouteFollower(lookup: lookup)
        var snapshot = KernelSnapshot()
        snapshot.links = [eth]
        follower.restart(from: &snapshot)
        let count = GatewayNeighbours.releasedLimit + 8
        for index in 1...count {
            let address = IPAddress("192.0.2.\(index)")!
            let route = DefaultRoute(family: .ipv4, interfaceIndex: 2, gateway: address)
            lookup.known = Neighbour(interfaceIndex: 2, address: address, linkLayerAddress: "02:00:00:00:00:01")
            _ = follower.follow([.routeAdded(route, replacing: false)], routingChange: RoutingChange())
            _ = follower.follow([.routeRemoved(route)], routingChange: RoutingChange())
        }
        lookup.neighbourAsked = []
        let routes = (1...count).map {
            KernelEvent.routeAdded(
                DefaultRoute(family: .ipv4, interfaceIndex: 2, gateway: IPAddress("192.0.2.\($0)")!), replacing: false)
        }
        _ = follower.follow(routes, routingChange: RoutingChange())
        #expect(lookup.neighbourAsked.count == count - GatewayNeighbours.releasedLimit)
    }
}
