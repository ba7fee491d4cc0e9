// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

@testable import Netlink

/// The RTM_GETROUTE and neighbour requests pathmond writes byte by byte, and the reading of constructed replies
/// (including malformed and unrelated ones, which must never be taken for an answer).
@Suite struct KernelRequestMessageTests {
    typealias Bytes = RouteLookupMessage

    @Test func aRouteRequestCarriesDestinationSourceAndMark() {
        let query = RouteQuery(destination: IPAddress("1.1.1.1")!, source: IPAddress("192.0.2.10")!, mark: 51820)
        let bytes = RouteLookupMessage.request(for: query, sequence: 7)
        #expect(Bytes.u32(bytes, 0) == UInt32(bytes.count))
        #expect(Bytes.u16(bytes, 4) == 26 && Bytes.u32(bytes, 8) == 7)
        #expect(Array(bytes[16..<19]) == [2, 32, 32], "AF_INET, /32 destination, /32 source")
        let attributes = Bytes.attributes(bytes, from: 28)
        #expect(attributes.map(\.0) == [1, 2, 16])
        #expect(attributes[0].1 == [1, 1, 1, 1] && attributes[1].1 == [192, 0, 2, 10])
        #expect(Bytes.u32(attributes[2].1, 0) == 51820)
    }

    /// Every field at once, IPv6, and two requests in one datagram: each whole, at its own offset, with its own
    /// sequence, and the longest no longer than `largestRequest`.
    @Test func requestsAppendWholeOneAfterAnother() {
        let full = RouteQuery(
            destination: IPAddress("2606:4700:4700::1111")!, source: IPAddress("2001:db8::10")!, mark: 7,
            uid: 1000, outputInterfaceIndex: 9)
        var datagram: [UInt8] = []
        RouteLookupMessage.appendRequest(for: full, sequence: 41, to: &datagram)
        let first = datagram.count
        #expect(first == RouteLookupMessage.largestRequest)
        RouteLookupMessage.appendRequest(for: .internet(.ipv4), sequence: 42, to: &datagram)
        #expect(Bytes.u32(datagram, 0) == UInt32(first) && Bytes.u32(datagram, 8) == 41)
        #expect(Array(datagram[16..<24]) == [10, 128, 128, 0, 0, 0, 0, 0], "AF_INET6, /128, /128, then zeros")
        let attributes = Bytes.attributes(Array(datagram[..<first]), from: 28)
        #expect(attributes.map(\.0) == [1, 2, 16, 25, 4])
        #expect(attributes[0].1 == IPAddress("2606:4700:4700::1111")!.bytes)
        #expect(attributes[1].1 == IPAddress("2001:db8::10")!.bytes)
        #expect(attributes[2...].map { Bytes.u32($0.1, 0) } == [7, 1000, 9])
        let second = Array(datagram[first...])
        #expect(second == RouteLookupMessage.request(for: .internet(.ipv4), sequence: 42))
        #expect(Bytes.u32(second, 0) == UInt32(second.count) && Bytes.u32(second, 8) == 42)
    }

    /// A batch's datagram is written into memory never zeroed: every byte of a request is written, so what was
    /// there before (here 0xAA) shows nowhere, and the request is the one `request(for:)` makes.
    @Test func aRequestWrittenInPlaceSetsEveryByte() {
        let queries = [
            RouteQuery(
                destination: IPAddress("2606:4700:4700::1111")!, source: IPAddress("2001:db8::10")!, mark: 7,
                uid: 1000, outputInterfaceIndex: 9),
            .internet(.ipv4), RouteQuery(destination: IPAddress("192.0.2.80")!, source: IPAddress("10.0.0.2")!),
        ]
        for (position, query) in queries.enumerated() {
            var buffer = [UInt8](repeating: 0xAA, count: 3 + RouteLookupMessage.largestRequest)
            let length = buffer.withUnsafeMutableBytes {
                RouteLookupMessage.writeRequest(for: query, sequence: 5, into: $0, at: 3)
            }
            let expected = RouteLookupMessage.request(for: query, sequence: 5)
            #expect(Array(buffer[3..<3 + length]) == expected, "query \(position)")
            #expect(buffer[..<3].allSatisfy { $0 == 0xAA } && buffer[(3 + length)...].allSatisfy { $0 == 0xAA })
        }
    }

    /// The system path's queries are root's: RTA_UID 0, whatever user pathmond runs as.
    @Test func theInternetsProbesAreAskedAsRoot() {
        let bytes = RouteLookupMessage.request(for: .internet(.ipv4), sequence: 8)
        #expect(Bytes.u32(bytes, 0) == UInt32(bytes.count))
        let attributes = Bytes.attributes(bytes, from: 28)
        #expect(attributes.map(\.0) == [1, 25])
        #expect(Bytes.u32(attributes[1].1, 0) == 0)
    }

    /// A bound socket's question names its interface: RTA_OIF with its index.
    @Test func aBoundQuestionCarriesItsOutputInterface() {
        let query = RouteQuery(
            destination: IPAddress("192.0.2.80")!, source: IPAddress("10.0.0.2")!, outputInterfaceIndex: 7)
        let bytes = RouteLookupMessage.request(for: query, sequence: 2)
        #expect(Bytes.u32(bytes, 0) == UInt32(bytes.count))
        let attributes = Bytes.attributes(bytes, from: 28)
        #expect(Bytes.u32(bytes, 24) == 0x1000, "RTM_F_LOOKUP_TABLE: the answer names its route's table")
        #expect(attributes.map(\.0) == [1, 2, 4])
        #expect(Bytes.u32(attributes[2].1, 0) == 7)
    }

    /// The kernel's answer to a question naming an output interface with no route for it: the destination
    /// assumed on link, from no table. That goes nowhere; a connected route (from a table) does not.
    @Test func anAnswerFromNoTableIsUnroutable() {
        let attributes = Bytes.attribute(4, Bytes.littleEndianBytes(UInt32(3)))
        var assumed = route(type: 1, attributes: attributes)
        assumed[4] = 0  // rtm_table: none
        #expect(
            RouteLookupMessage.reply(reply(type: 24, sequence: 4, body: assumed), sequence: 4)
                == .decision(.unroutable))
        let connected = route(type: 1, attributes: attributes)
        #expect(
            RouteLookupMessage.reply(reply(type: 24, sequence: 4, body: connected), sequence: 4)
                == .decision(.via(interfaceIndex: 3, gateway: nil)))
        // A table past 255: rtm_table says RT_TABLE_COMPAT, RTA_TABLE the id.
        var numbered = route(
            type: 1, attributes: attributes + Bytes.attribute(15, Bytes.littleEndianBytes(UInt32(1000))))
        numbered[4] = 252
        #expect(
            RouteLookupMessage.reply(reply(type: 24, sequence: 4, body: numbered), sequence: 4)
                == .decision(.via(interfaceIndex: 3, gateway: nil)))
    }

    func reply(type: UInt16, sequence: UInt32, body: [UInt8]) -> [UInt8] {
        Bytes.littleEndianBytes(UInt32(16 + body.count)) + Bytes.littleEndianBytes(type) + [0, 0]
            + Bytes.littleEndianBytes(sequence) + [0, 0, 0, 0] + body
    }

    func route(type: UInt8, attributes: [UInt8]) -> [UInt8] {
        [2, 32, 0, 0, 254, 0, 0, type, 0, 0, 0, 0] + attributes
    }

    @Test func aUnicastAnswerGivesInterfaceAndGateway() {
        let body = route(
            type: 1,
            attributes: Bytes.attribute(4, Bytes.littleEndianBytes(UInt32(3))) + Bytes.attribute(5, [10, 0, 0, 1]))
        #expect(
            RouteLookupMessage.reply(reply(type: 24, sequence: 9, body: body), sequence: 9)
                == .decision(.via(interfaceIndex: 3, gateway: IPAddress("10.0.0.1")!)))
        #expect(RouteLookupMessage.reply(reply(type: 24, sequence: 8, body: body), sequence: 9) == .unrelated)
    }

    @Test func aGatewayOfTheOtherFamilyComesFromRTAVia() {
        let v6: [UInt8] = [0xfe, 0x80] + [UInt8](repeating: 0, count: 13) + [1]
        // RTA_VIA (struct rtvia: family, address), then RTA_OIF after it: the gateway ends where RTA_VIA does.
        let body = route(
            type: 1,
            attributes: Bytes.attribute(18, [10, 0] + v6) + Bytes.attribute(4, Bytes.littleEndianBytes(UInt32(5))))
        #expect(
            RouteLookupMessage.reply(reply(type: 24, sequence: 3, body: body), sequence: 3)
                == .decision(.via(interfaceIndex: 5, gateway: IPAddress(bytes: v6)!)))
        let shortInterface = route(type: 1, attributes: Bytes.attribute(4, [5, 0]))
        #expect(
            RouteLookupMessage.reply(reply(type: 24, sequence: 3, body: shortInterface), sequence: 3)
                == .decision(.unroutable))
    }

    @Test func blockingRoutesAndRoutingErrorsAreUnroutable() {
        #expect(
            RouteLookupMessage.reply(reply(type: 24, sequence: 1, body: route(type: 6, attributes: [])), sequence: 1)
                == .decision(.unroutable))
        for errno: Int32 in [101, 113, 13, 22] {
            let body = Bytes.littleEndianBytes(UInt32(bitPattern: -errno)) + [UInt8](repeating: 0, count: 16)
            #expect(
                RouteLookupMessage.reply(reply(type: 2, sequence: 1, body: body), sequence: 1) == .decision(.unroutable)
            )
        }
        let nomem = Bytes.littleEndianBytes(UInt32(bitPattern: -12)) + [UInt8](repeating: 0, count: 16)
        #expect(RouteLookupMessage.reply(reply(type: 2, sequence: 1, body: nomem), sequence: 1) == .failed(errno: 12))
    }

    @Test func truncatedAndOverlongRepliesAreNeverAnswers() {
        let good = reply(type: 24, sequence: 1, body: route(type: 1, attributes: Bytes.attribute(4, [3, 0, 0, 0])))
        for length in 0..<good.count {
            let cut = Array(good[..<length])
            #expect(RouteLookupMessage.reply(cut, sequence: 1) != .decision(.via(interfaceIndex: 3, gateway: nil)))
        }
        var lying = good
        lying[0] = 0xff
        #expect(RouteLookupMessage.reply(lying, sequence: 1) == .unrelated)
    }

    /// The whole RTM_GETNEIGH request, byte for byte, for both families: nlmsghdr, ndmsg, NDA_DST.
    @Test func neighbourLookUpBytes() {
        let ipv4 = NeighbourRequestMessage.lookUp(
            GatewayKey(interfaceIndex: 0x0102, address: IPAddress("192.0.2.1")!), sequence: 0x0A0B_0C0D)
        #expect(
            ipv4 == [
                36, 0, 0, 0, 30, 0, 1, 0, 0x0D, 0x0C, 0x0B, 0x0A, 0, 0, 0, 0,
                2, 0, 0, 0, 0x02, 0x01, 0, 0, 0, 0, 0, 0,
                8, 0, 1, 0, 192, 0, 2, 1,
            ])
        let ipv6 = NeighbourRequestMessage.lookUp(
            GatewayKey(interfaceIndex: 7, address: IPAddress("fe80::1")!), sequence: 1)
        #expect(ipv6.count == 48 && Bytes.u32(ipv6, 0) == 48 && ipv6[16] == 10 && Bytes.u16(ipv6, 28) == 20)
        #expect(Bytes.attributes(ipv6, from: 28).first?.1 == IPAddress("fe80::1")!.bytes)
    }

    @Test func neighbourRequestsAndAnswers() {
        let gateway = GatewayKey(interfaceIndex: 2, address: IPAddress("192.0.2.1")!)
        let use = NeighbourRequestMessage.resolve(gateway, sequence: 4)
        #expect(Bytes.u16(use, 4) == 28 && Bytes.u16(use, 6) == 0x405 && use[16 + 10] == 0x01, "NTF_USE, create, ack")
        #expect(Bytes.attributes(use, from: 28).first?.1 == [192, 0, 2, 1])

        let reachable =
            [2, 0, 0, 0] + Bytes.littleEndianBytes(Int32(2)) + Bytes.littleEndianBytes(UInt16(0x02)) + [0, 1]
            + Bytes.attribute(1, [192, 0, 2, 1]) + Bytes.attribute(2, [2, 0, 0, 0, 0, 0xaa])
        #expect(
            NeighbourRequestMessage.answer(reply(type: 28, sequence: 5, body: reachable), to: gateway, sequence: 5)
                == .resolved(
                    Neighbour(interfaceIndex: 2, address: gateway.address, linkLayerAddress: "02:00:00:00:00:aa")))
        var incomplete = reachable
        incomplete[8] = 0x01  // NUD_INCOMPLETE
        #expect(
            NeighbourRequestMessage.answer(reply(type: 28, sequence: 5, body: incomplete), to: gateway, sequence: 5)
                == .unresolved)
        let missing = Bytes.littleEndianBytes(UInt32(bitPattern: -2)) + [UInt8](repeating: 0, count: 16)
        #expect(
            NeighbourRequestMessage.answer(reply(type: 2, sequence: 5, body: missing), to: gateway, sequence: 5)
                == .unresolved)
    }
}

/// IP tunnels' far ends from constructed IFLA_LINKINFO attributes (this kernel has no tunnel modules to make one).
@Suite struct TunnelEndpointParserTests {
    typealias Bytes = RouteLookupMessage

    func linkInfo(kind: String, data: [UInt8]) -> [UInt8] {
        Bytes.attribute(3, Array("gre1\0".utf8))  // IFLA_IFNAME before it, as the kernel sends
            + Bytes.attribute(18, Bytes.attribute(1, Array((kind + "\0").utf8)) + Bytes.attribute(2, data))
    }

    @Test func greRemoteAndMark() {
        let data =
            Bytes.attribute(6, [203, 0, 113, 10]) + Bytes.attribute(7, [198, 18, 0, 9])
            + Bytes.attribute(20, Bytes.littleEndianBytes(UInt32(51820)))
        #expect(
            TunnelEndpointParser.endpoints(inLinkAttributes: linkInfo(kind: "gre", data: data))
                == TunnelEndpoints(remotes: [IPAddress("198.18.0.9")!], mark: 51820))
    }

    @Test func ipipAndIPv6Tunnels() {
        #expect(
            TunnelEndpointParser.endpoints(
                inLinkAttributes: linkInfo(kind: "ipip", data: Bytes.attribute(3, [198, 18, 0, 9])))
                == TunnelEndpoints(remotes: [IPAddress("198.18.0.9")!]))
        let remote = IPAddress("2001:db8::9")!
        #expect(
            TunnelEndpointParser.endpoints(
                inLinkAttributes: linkInfo(kind: "ip6tnl", data: Bytes.attribute(3, remote.bytes)))
                == TunnelEndpoints(remotes: [remote]))
    }

    @Test func noFarEndNoEndpoints() {
        // A wildcard remote, another kind, a truncated attribute: nothing to route to.
        #expect(
            TunnelEndpointParser.endpoints(
                inLinkAttributes: linkInfo(kind: "gre", data: Bytes.attribute(7, [0, 0, 0, 0])))
                == nil)
        #expect(
            TunnelEndpointParser.endpoints(
                inLinkAttributes: linkInfo(kind: "veth", data: Bytes.attribute(7, [1, 2, 3, 4])))
                == nil)
        let whole = linkInfo(kind: "gre", data: Bytes.attribute(7, [198, 18, 0, 9]))
        for length in 0..<whole.count {
            #expect(TunnelEndpointParser.endpoints(inLinkAttributes: Array(whole[..<length])) == nil)
        }
    }
}

/// A batch's replies are matched by sequence number: each query once, and a reply to an earlier batch's request
/// (a sequence before the first, which wraps) or to none at all is nobody's.
@Suite struct WaitingRepliesTests {
    @Test func eachQueryIsTakenOnceByItsSequence() {
        let queries = ["192.0.2.1", "192.0.2.2", "192.0.2.3"].map { RouteQuery(destination: IPAddress($0)!) }
        var waiting = WaitingReplies(first: UInt32.max, queries: queries)  // wraps within the batch
        #expect(waiting.count == 3 && !waiting.isEmpty)
        #expect(waiting.take(0) == queries[1])
        #expect(waiting.take(0) == nil, "answered already")
        #expect(waiting.take(UInt32.max - 1) == nil, "an earlier batch's")
        #expect(waiting.take(2) == nil, "past the batch")
        #expect(waiting.take(1) == queries[2] && waiting.take(UInt32.max) == queries[0])
        #expect(waiting.isEmpty)
    }
}
