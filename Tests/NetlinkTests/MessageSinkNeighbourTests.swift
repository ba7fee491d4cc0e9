// SPDX-License-Identifier: Apache-2.0
import CNetlink
import NetlinkTestSupport
import PathModel
import Testing

@testable import Netlink

/// The notifications' sink leaves an entry the route follower does not read at its header and address: not
/// converted, not noted for the kernel's choice. Unless a route (or any message but a neighbour's) came before it in
/// the same read: the follower has not seen that route yet, and it may make the entry a gateway's. And it tells the
/// follower whether it has applied every message before (only then may it compare the entry with what it holds). The kernel's own
/// messages, read from a dump.
@Suite struct MessageSinkNeighbourTests {
    @Test func anEntryNotReadIsLeftOutUnlessARouteCameBefore() async throws {
        try await withTestNamespace { namespace in
            let va = try namespace.index(of: "va")
            try namespace.ip("address add 192.0.2.10/24 dev va")
            try namespace.ip("route add default via 192.0.2.1 dev va")
            try namespace.ip("neigh replace 192.0.2.5 lladdr 02:00:00:00:00:05 dev va nud stale")
            let neighbours = try RawDump.messages(
                Int32(RTM_GETNEIGH), answeredBy: Int32(RTM_NEWNEIGH), in: namespace)
            let routes = try RawDump.messages(Int32(RTM_GETROUTE), answeredBy: Int32(RTM_NEWROUTE), in: namespace)
            let entry = GatewayKey(interfaceIndex: va, address: IPAddress("192.0.2.5")!)
            let neighbour = try #require(
                neighbours.first { message in
                    var message = message
                    return message.withUnsafeMutableBytes {
                        NeighbourConversion.key(of: $0.baseAddress!.assumingMemoryBound(to: nlmsghdr.self)) == entry
                    }
                })
            let route = try #require(routes.first)
            let converted = KernelEvent.neighbourChanged(
                Neighbour(interfaceIndex: va, address: entry.address, linkLayerAddress: "02:00:00:00:00:05"))

            var asked: [GatewayKey] = []
            var current: [Bool] = []
            func read(_ messages: [[UInt8]], reads: Bool?) -> (events: [KernelEvent], notes: Int) {
                let sink = MessageSink()
                current = []
                if let reads {
                    sink.readsNeighbour = { message in
                        asked.append(message.key)
                        current.append(message.followerIsCurrent)
                        return reads
                    }
                }
                for var message in messages {
                    message.withUnsafeMutableBytes {
                        sink.receive(header: $0.baseAddress!.assumingMemoryBound(to: nlmsghdr.self))
                    }
                }
                return (sink.take(), sink.takeRoutingChange().neighbours.count)
            }
            let left = read([neighbour], reads: false)
            #expect(left.events.isEmpty && left.notes == 0 && asked == [entry])
            let kept = read([neighbour], reads: true)
            #expect(kept.events == [converted] && kept.notes == 1)
            let afterRoute = read([route, neighbour], reads: false)
            #expect(afterRoute.events.contains(converted) && afterRoute.notes == 1)
            // The follower is current until a message is collected: after one, what it holds of an entry may be
            // older than the entry (nothing is compared with it then).
            _ = read([neighbour, neighbour], reads: false)
            #expect(current == [true, true])
            _ = read([neighbour, neighbour], reads: true)
            #expect(current == [true, false])
            let everything = read([neighbour], reads: nil)
            #expect(everything.events == [converted] && everything.notes == 1)
        }
    }
}
