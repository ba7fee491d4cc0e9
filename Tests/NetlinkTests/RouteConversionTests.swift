// SPDX-License-Identifier: Apache-2.0
import CNetlink
import Glibc
import NetlinkTestSupport
import PathModel
import Testing

@testable import Netlink

/// The route reader takes a default route's facts from its attribute table (issue 41), as the link and address
/// readers do. libnl's route parser stays the oracle: on the kernel's own messages for every shape of default route
/// (with and without a gateway, another table, a table past 255, split halves, multipath, IPv6, an IPv4 route via an
/// IPv6 neighbour, a nexthop object, a blackhole taking a slot over), both must read the same events.
@Suite(.serialized) struct RouteConversionTests {
    @Test func readsEveryDefaultRouteAsLibnlsRouteParserDoes() throws {
        let namespace = try TestNetworkNamespace(prefix: "pmrc")
        defer { namespace.delete() }
        try namespace.batch([
            "link add veth0 index 10 type veth peer name veth1 index 20",
            "link add veth2 index 30 type veth peer name veth3 index 40",
            "link set veth0 up", "link set veth1 up", "link set veth2 up", "link set veth3 up",
            "address add 10.1.0.1/24 dev veth0",
            "address add 10.2.0.1/24 dev veth2",
            "route add default via 10.1.0.254 dev veth0 metric 50",
            "route add default dev veth2 metric 70",
            "route add default via 10.2.0.254 dev veth2 metric 60 table 100",
            "route add default via 10.1.0.254 dev veth0 table 1000",
            "route add 0.0.0.0/1 via 10.1.0.254 dev veth0 metric 5",
            "route add 128.0.0.0/1 via 10.1.0.254 dev veth0 metric 5",
            "route add default metric 80 nexthop via 10.1.0.254 dev veth0 nexthop via 10.2.0.254 dev veth2",
            "route add 0.0.0.0/0 via inet6 fe80::1 dev veth0 metric 99",
            "route add ::/0 via fe80::1 dev veth0 metric 90",
            "route add ::/0 metric 95 nexthop via fe80::1 dev veth0 nexthop via fe80::2 dev veth2",
            "nexthop add id 7 via 10.1.0.254 dev veth0",
            "route add default nhid 7 metric 120",
            "route add blackhole default metric 130",
        ])
        let messages = try RawDump.messages(Int32(RTM_GETROUTE), answeredBy: Int32(RTM_NEWROUTE), in: namespace)
        var read: [DefaultRoute] = []
        for message in messages {
            let events = Self.convert(message, removed: false)
            guard let events else {
                #expect(LibnlObjectOracle.routeEvents(message, removed: false) == nil || !Self.isCandidate(message))
                continue
            }
            #expect(events == LibnlObjectOracle.routeEvents(message, removed: false))
            #expect(Self.convert(message, removed: true) == LibnlObjectOracle.routeEvents(message, removed: true))
            for case .routeAdded(let route, _) in events { read.append(route) }
            // The same message announcing a replacement: a blocking route clears the slot it took.
            let replacing = Self.withFlags(message, NLM_F_REPLACE)
            #expect(Self.convert(replacing, removed: false) == LibnlObjectOracle.routeEvents(replacing, removed: false))
        }
        let blackhole = try #require(messages.first { Self.header($0).rtm_type == UInt8(RTN_BLACKHOLE) })
        let cleared = Self.convert(Self.withFlags(blackhole, NLM_F_REPLACE), removed: false)
        #expect(cleared == [.routeSlotCleared(DefaultRoute(family: .ipv4, metric: 130, interfaceIndex: 0))])
        #expect(Self.convert(blackhole, removed: false) == nil, "a blackhole added beside others is no route")

        let texts = Set(read.map(Self.describe))
        for expected in [
            "ipv4 t254 /0 m50 if10 via 10.1.0.254", "ipv4 t254 /0 m70 if30", "ipv4 t100 /0 m60 if30 via 10.2.0.254",
            "ipv4 t1000 /0 m0 if10 via 10.1.0.254", "ipv4 t254 /1@0 m5 if10 via 10.1.0.254",
            "ipv4 t254 /1@128 m5 if10 via 10.1.0.254", "ipv4 t254 /0 m80 if10 via 10.1.0.254 multipath",
            "ipv4 t254 /0 m80 if30 via 10.2.0.254 multipath", "ipv4 t254 /0 m99 if10 via fe80::1",
            "ipv6 t254 /0 m90 if10 via fe80::1", "ipv6 t254 /0 m95 if10 via fe80::1 multipath",
            "ipv6 t254 /0 m95 if30 via fe80::2 multipath", "ipv4 t254 /0 m120 if0 nexthop 7",
        ] {
            #expect(texts.contains(expected), "\(expected) not among \(texts.sorted())")
        }
    }

    /// Cut short in its next hops, or with no interface: never a route, and never a read past the message.
    @Test func aBrokenNextHopIsSaidSo() {
        let oif: [UInt8] = RouteLookupMessage.littleEndianBytes(UInt32(10))
        let gateway: [UInt8] = [10, 1, 0, 254]
        #expect(Self.describe(attributes: [(4, oif), (5, gateway)]) == "ipv4 t254 /0 m0 if10 via 10.1.0.254")
        #expect(Self.describe(attributes: [(5, gateway)]) == "malformed", "no interface")
        // RTA_MULTIPATH (9): one rtnexthop (length 8, interface 10), then one claiming 64 bytes of 8.
        let hop: [UInt8] = [8, 0, 0, 0] + oif
        #expect(Self.describe(attributes: [(9, hop)]) == "ipv4 t254 /0 m0 if10")
        #expect(Self.describe(attributes: [(9, hop + [64, 0, 0, 0] + oif)]) == "malformed")
        // A next hop's gateway, and one whose attribute runs past its next hop: left out, as libnl's nla_parse
        // leaves out what does not fit.
        let withGateway: [UInt8] = [16, 0, 0, 0] + oif + [8, 0, 5, 0] + gateway
        #expect(Self.describe(attributes: [(9, withGateway)]) == "ipv4 t254 /0 m0 if10 via 10.1.0.254")
        let overrunning: [UInt8] = [16, 0, 0, 0] + oif + [12, 0, 5, 0] + gateway
        #expect(Self.describe(attributes: [(9, overrunning)]) == "ipv4 t254 /0 m0 if10")
        // Two next hops, the second without an interface: the first alone, still one of several.
        let second: [UInt8] = [8, 0, 0, 0] + RouteLookupMessage.littleEndianBytes(UInt32(0))
        #expect(
            Self.describe(attributes: [(9, withGateway + second)]) == "ipv4 t254 /0 m0 if10 via 10.1.0.254 multipath")
    }

    private static func header(_ message: [UInt8]) -> rtmsg {
        message.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 16, as: rtmsg.self) }
    }

    private static func isCandidate(_ message: [UInt8]) -> Bool {
        RouteConversion.isDefaultRouteCandidate(header(message))
    }

    private static func withFlags(_ message: [UInt8], _ flag: Int32) -> [UInt8] {
        var message = message
        let flags = UInt16(message[6]) | UInt16(message[7]) << 8 | UInt16(flag)
        message[6] = UInt8(flags & 0xff)
        message[7] = UInt8(flags >> 8)
        return message
    }

    /// The events the reader makes of a message; nil when it is not relevant or malformed.
    private static func convert(_ message: [UInt8], removed: Bool) -> [KernelEvent]? {
        var message = message
        return message.withUnsafeMutableBytes { bytes in
            RouteConversion.events(
                from: bytes.baseAddress!.assumingMemoryBound(to: nlmsghdr.self), removed: removed
            ).events
        }
    }

    private static func describe(_ route: DefaultRoute) -> String {
        var text = "\(route.family) t\(route.table) /\(route.prefixLength)"
        if route.prefixLength > 0 { text += "@\(route.destinationHighByte)" }
        text += " m\(route.metric) if\(route.interfaceIndex)"
        if let gateway = route.gateway { text += " via \(gateway)" }
        if route.isMultipath { text += " multipath" }
        if let nexthop = route.nexthopID { text += " nexthop \(nexthop)" }
        return text
    }

    /// An RTM_NEWROUTE for an IPv4 unicast default route in the main table with `attributes`, as the reader
    /// reads it.
    private static func describe(attributes: [(UInt16, [UInt8])]) -> String {
        // rtmsg: family, dst_len, src_len, tos, table (254), protocol, scope, type (unicast), flags.
        var body: [UInt8] = [UInt8(AF_INET), 0, 0, 0, 254, 3, 0, UInt8(RTN_UNICAST)] + [0, 0, 0, 0]
        for (kind, value) in attributes { body += RouteLookupMessage.attribute(kind, value) }
        var message = RouteLookupMessage.littleEndianBytes(UInt32(16 + body.count))
        message += RouteLookupMessage.littleEndianBytes(UInt16(RTM_NEWROUTE)) + [UInt8](repeating: 0, count: 10) + body
        guard let events = convert(message, removed: false) else { return "malformed" }
        return events.map { event in
            guard case .routeAdded(let route, _) = event else { return "other" }
            return describe(route)
        }.joined(separator: "; ")
    }
}
