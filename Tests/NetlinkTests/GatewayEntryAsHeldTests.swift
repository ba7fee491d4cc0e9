// SPDX-License-Identifier: Apache-2.0
import CNetlink
import Glibc
import PathModel
import Testing

@testable import Netlink

/// The follower tells the notifications' sink to leave a gateway's entry at its header when the message says what
/// it holds: the same link-layer address, usable, as route selection already sees it (REACHABLE, STALE, DELAY and
/// PROBE as traffic comes and goes, what a gateway's entry does all day). Each message it leaves must be one that,
/// converted and followed, would change nothing and ask nothing: checked here for every kind of message against a
/// follower that reads it.
@Suite struct GatewayEntryAsHeldTests {
    final class CountingLookup: RouteLookup {
        var asked: [RouteQuery] = []
        var neighbourAsked: [GatewayKey] = []
        var known: Neighbour?
        func decide(_ queries: some Collection<RouteQuery>) -> RouteAnswers {
            asked += queries
            return queries.map { ($0, .via(interfaceIndex: 2, gateway: IPAddress("192.0.2.1")!)) }
        }
        func neighbour(_ gateway: GatewayKey) -> Neighbour? {
            neighbourAsked.append(gateway)
            return known
        }
        func resolve(_ gateway: GatewayKey) -> GatewayResolution { .requested }
    }

    static let gateway = IPAddress("192.0.2.1")!
    static let held = Neighbour(interfaceIndex: 2, address: gateway, linkLayerAddress: "02:00:00:00:00:01")
    static let route = DefaultRoute(family: .ipv4, interfaceIndex: 2, gateway: gateway)

    /// A follower started from a dump listing the gateway's route and its entry (so route selection sees it usable).
    private static func listed() -> (RouteFollower, CountingLookup) {
        let lookup = CountingLookup()
        let follower = RouteFollower(lookup: lookup)
        var snapshot = KernelSnapshot(
            links: [Link(index: 2, name: "eth0", flags: [.up, .running], linkKind: "veth")], routes: [route],
            neighbours: [held])
        follower.restart(from: &snapshot)
        lookup.asked = []
        return (follower, lookup)
    }

    /// An RTM_NEWNEIGH (or RTM_DELNEIGH) for an IPv4 entry on eth0.
    private static func message(
        removed: Bool = false, address: [UInt8] = [192, 0, 2, 1], state: Int32, linkLayer: [UInt8]?
    ) -> [UInt8] {
        var body = [UInt8](repeating: 0, count: MemoryLayout<ndmsg>.size)
        body[0] = UInt8(AF_INET)
        withUnsafeBytes(of: Int32(2).littleEndian) { body.replaceSubrange(4..<8, with: $0) }
        withUnsafeBytes(of: UInt16(state).littleEndian) { body.replaceSubrange(8..<10, with: $0) }
        body += RouteLookupMessage.attribute(UInt16(NDA_DST), address)
        if let linkLayer { body += RouteLookupMessage.attribute(UInt16(NDA_LLADDR), linkLayer) }
        var message = RouteLookupMessage.littleEndianBytes(UInt32(16 + body.count))
        message += RouteLookupMessage.littleEndianBytes(UInt16(removed ? RTM_DELNEIGH : RTM_NEWNEIGH))
        message += [UInt8](repeating: 0, count: 10)
        return message + body
    }

    /// Whether `follower` reads the message, asked as the sink asks.
    private static func reads(_ follower: RouteFollower, _ bytes: [UInt8], followerIsCurrent: Bool = true) -> Bool {
        var bytes = bytes
        return bytes.withUnsafeMutableBytes {
            let header = $0.baseAddress!.assumingMemoryBound(to: nlmsghdr.self)
            return follower.reads(try! #require(NeighbourMessage(header, followerIsCurrent: followerIsCurrent)))
        }
    }

    /// What following the message does: the events handed on and the queries asked.
    private static func followed(_ follower: RouteFollower, _ lookup: CountingLookup, _ bytes: [UInt8])
        -> (handedOn: [KernelEvent], asked: [RouteQuery])
    {
        var bytes = bytes
        var change = RoutingChange()
        var batch: [KernelEvent] = []
        bytes.withUnsafeMutableBytes {
            let header = $0.baseAddress!.assumingMemoryBound(to: nlmsghdr.self)
            change.note(header)
            let removed = header.pointee.nlmsg_type == UInt16(RTM_DELNEIGH)
            batch = NeighbourConversion.events(from: header, removed: removed).events ?? []
        }
        lookup.asked = []
        let kept = follower.follow(appendingTo: &batch, routingChange: change)
        return (Array(batch[..<kept]), lookup.asked)
    }

    /// Each kind of message: whether the follower reads it, and whether following it moves anything (a usable
    /// state without a link-layer address is read though it moves nothing: converted, it is a removal, which the
    /// model ignores for a gateway's entry; the kernel does not send it).
    @Test(arguments: [
        ("REACHABLE, as held", NUD_REACHABLE, [UInt8]([2, 0, 0, 0, 0, 1]), false, false, false),
        ("STALE, as held", NUD_STALE, [2, 0, 0, 0, 0, 1], false, false, false),
        ("DELAY, as held", NUD_DELAY, [2, 0, 0, 0, 0, 1], false, false, false),
        ("PROBE, as held", NUD_PROBE, [2, 0, 0, 0, 0, 1], false, false, false),
        ("another link-layer address", NUD_REACHABLE, [2, 0, 0, 0, 0, 9], false, true, true),
        ("a longer link-layer address", NUD_REACHABLE, [2, 0, 0, 0, 0, 1, 0, 0], false, true, true),
        ("no link-layer address", NUD_REACHABLE, [], false, true, false),
        ("FAILED", NUD_FAILED, [2, 0, 0, 0, 0, 1], false, true, true),
        ("INCOMPLETE", NUD_INCOMPLETE, [], false, true, true),
        ("deleted", NUD_REACHABLE, [2, 0, 0, 0, 0, 1], true, true, true),
    ])
    func aGatewaysEntryIsReadUnlessItRestatesWhatIsHeld(
        what: String, state: Int32, linkLayer: [UInt8], removed: Bool, read: Bool, moves: Bool
    ) throws {
        let bytes = Self.message(removed: removed, state: state, linkLayer: linkLayer.isEmpty ? nil : linkLayer)
        let (follower, lookup) = Self.listed()
        #expect(Self.reads(follower, bytes) == read, "\(what)")
        // What the message does when followed: a message left out must do nothing (nothing handed on, nothing
        // asked); those that change the entry, or how route selection sees it, do something.
        let (reading, readingLookup) = Self.listed()
        let outcome = Self.followed(reading, readingLookup, bytes)
        #expect(read || !moves)
        #expect((!outcome.handedOn.isEmpty || !outcome.asked.isEmpty) == moves, "\(what): \(outcome)")
        // Whatever it was, a follower that has not applied an earlier message of the same read reads it.
        #expect(Self.reads(follower, bytes, followerIsCurrent: false))
        _ = lookup
    }

    /// An entry the follower holds without knowing how route selection sees it (resolved by asking the kernel when
    /// its route came, which tells no state) is read: its first message says.
    @Test func anEntryFoundByAskingIsReadOnce() {
        let lookup = CountingLookup()
        let follower = RouteFollower(lookup: lookup)
        var snapshot = KernelSnapshot(links: [Link(index: 2, name: "eth0", flags: [.up, .running], linkKind: "veth")])
        follower.restart(from: &snapshot)
        lookup.known = Self.held
        let added = follower.follow([.routeAdded(Self.route, replacing: false)], routingChange: RoutingChange())
        #expect(added.contains(.neighbourChanged(Self.held)))
        let reachable = Self.message(state: NUD_REACHABLE, linkLayer: [2, 0, 0, 0, 0, 1])
        #expect(Self.reads(follower, reachable))
        _ = Self.followed(follower, lookup, reachable)
        #expect(!Self.reads(follower, reachable))
    }

    /// A LAN host's entry, which no route leaves by, is not read, whatever it says.
    @Test func aHostsEntryIsNotRead() {
        let (follower, _) = Self.listed()
        let host = Self.message(address: [192, 0, 2, 9], state: NUD_REACHABLE, linkLayer: [2, 0, 0, 0, 0, 9])
        #expect(!Self.reads(follower, host))
    }

    @Test func aLinkLayerAddressIsComparedAsSpelled() {
        let bytes: [UInt8] = [0x02, 0xab, 0x00, 0x10, 0xff, 0x01]
        bytes.withUnsafeBytes { raw in
            #expect(LinkConversion.hardwareAddressText("02:ab:00:10:ff:01", spells: raw))
            #expect(LinkConversion.hardwareAddressText(LinkConversion.hardwareAddressText(bytes), spells: raw))
            #expect(!LinkConversion.hardwareAddressText("02:ab:00:10:ff:02", spells: raw))
            #expect(!LinkConversion.hardwareAddressText("02:ab:00:10:ff", spells: raw))
            #expect(!LinkConversion.hardwareAddressText("02-ab-00-10-ff-01", spells: raw))
            #expect(!LinkConversion.hardwareAddressText("", spells: UnsafeRawBufferPointer(rebasing: raw[0..<0])))
        }
    }
}
