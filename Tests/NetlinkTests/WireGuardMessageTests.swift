// SPDX-License-Identifier: Apache-2.0
import FuzzSupport
import NetlinkTestSupport
import PathModel
import Testing

@testable import Netlink

/// WG_CMD_GET_DEVICE replies built here from linux/wireguard.h's layout: nlmsghdr, genlmsghdr (command, version,
/// reserved), then WGDEVICE_A_* attributes; WGDEVICE_A_PEERS nests one attribute per peer, each nesting
/// WGPEER_A_* attributes, and WGPEER_A_ENDPOINT is a struct sockaddr_in or sockaddr_in6.
enum WireGuardBytes {
    static let nested: UInt16 = 0x8000  // NLA_F_NESTED, as the kernel sets it

    static func attribute(_ kind: UInt16, _ value: [UInt8]) -> [UInt8] { RouteLookupMessage.attribute(kind, value) }
    static func u32(_ value: UInt32) -> [UInt8] { RouteLookupMessage.littleEndianBytes(value) }

    /// sockaddr_in: family 2, port (network order), address, 8 bytes of zero.
    static func socketAddress4(_ address: [UInt8], port: UInt16 = 51820) -> [UInt8] {
        [2, 0, UInt8(port >> 8), UInt8(port & 0xff)] + address + [UInt8](repeating: 0, count: 8)
    }

    /// sockaddr_in6: family 10, port, flow info, address, scope id.
    static func socketAddress6(_ address: [UInt8], port: UInt16 = 51820) -> [UInt8] {
        [10, 0, UInt8(port >> 8), UInt8(port & 0xff)] + u32(0) + address + u32(0)
    }

    /// One peer: its public key, and its endpoint if it has one.
    static func peer(endpoint: [UInt8]?) -> [UInt8] {
        var body = attribute(1, [UInt8](repeating: 0xab, count: 32))  // WGPEER_A_PUBLIC_KEY
        if let endpoint { body += attribute(4, endpoint) }  // WGPEER_A_ENDPOINT
        body += attribute(6, [UInt8](repeating: 0, count: 16))  // WGPEER_A_LAST_HANDSHAKE_TIME
        return attribute(nested | 0, body)
    }

    /// A whole reply message; the first of a dump carries the device's attributes, later ones only name and peers.
    static func reply(index: UInt32?, fwmark: UInt32?, peers: [[UInt8]], family: UInt16 = 0x1c) -> [UInt8] {
        var body: [UInt8] = [0, 1, 0, 0]  // genlmsghdr: WG_CMD_GET_DEVICE, version 1
        if let index { body += attribute(1, u32(index)) }  // WGDEVICE_A_IFINDEX
        body += attribute(2, Array("wg0".utf8) + [0])  // WGDEVICE_A_IFNAME
        if let fwmark { body += attribute(7, u32(fwmark)) }  // WGDEVICE_A_FWMARK
        if index != nil { body += attribute(6, [0x6c, 0xca, 0, 0]) }  // WGDEVICE_A_LISTEN_PORT
        body += attribute(nested | 8, peers.flatMap { $0 })  // WGDEVICE_A_PEERS
        let flags: UInt16 = 2  // NLM_F_MULTI
        return u32(UInt32(16 + body.count)) + RouteLookupMessage.littleEndianBytes(family)
            + RouteLookupMessage.littleEndianBytes(flags) + u32(7) + u32(0) + body
    }

    static let v4: [UInt8] = [203, 0, 113, 5]
    static let v6: [UInt8] = [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [5]
}

@Suite struct WireGuardMessageTests {
    @Test func readsEveryPeersEndpointAndTheMark() throws {
        let bytes = WireGuardBytes.reply(
            index: 7, fwmark: 51820,
            peers: [
                WireGuardBytes.peer(endpoint: WireGuardBytes.socketAddress4(WireGuardBytes.v4)),
                WireGuardBytes.peer(endpoint: nil),
                WireGuardBytes.peer(endpoint: WireGuardBytes.socketAddress6(WireGuardBytes.v6)),
            ])
        let device = try #require(WireGuardMessage.device(in: bytes))
        #expect(device.interfaceIndex == 7)
        #expect(device.fwmark == 51820)
        #expect(device.endpoints == [IPAddress(bytes: WireGuardBytes.v4)!, IPAddress(bytes: WireGuardBytes.v6)!])
    }

    @Test func mergesTheMessagesOfOneDump() throws {
        let first = WireGuardBytes.reply(
            index: 7, fwmark: nil,
            peers: [WireGuardBytes.peer(endpoint: WireGuardBytes.socketAddress4(WireGuardBytes.v4))])
        let second = WireGuardBytes.reply(
            index: nil, fwmark: nil,
            peers: [WireGuardBytes.peer(endpoint: WireGuardBytes.socketAddress6(WireGuardBytes.v6))])
        let device = try #require(WireGuardMessage.device(in: [first, second]))
        #expect(device.interfaceIndex == 7 && device.fwmark == nil)
        #expect(device.endpoints.count == 2)
    }

    @Test func wildcardsAndOtherFamiliesAreNoEndpoint() {
        #expect(WireGuardMessage.address(inSocketAddress: WireGuardBytes.socketAddress4([0, 0, 0, 0])) == nil)
        #expect(WireGuardMessage.address(inSocketAddress: [1, 0] + [UInt8](repeating: 1, count: 14)) == nil)
        #expect(WireGuardMessage.address(inSocketAddress: [10, 0, 0, 0, 0, 0, 0, 0, 1, 2]) == nil)
    }

    @Test func rejectsWhatIsNotAReply() {
        let good = WireGuardBytes.reply(index: 7, fwmark: nil, peers: [])
        #expect(WireGuardMessage.device(in: Array(good.prefix(19))) == nil)
        var error = good
        error[4] = 2  // NLMSG_ERROR
        error[5] = 0
        #expect(WireGuardMessage.device(in: error) == nil)
        var long = good
        long[0] = 0xff
        #expect(WireGuardMessage.device(in: long) == nil)
    }

    @Test func survivesMutatedMessages() {
        let seeds = [
            WireGuardBytes.reply(
                index: 7, fwmark: 1,
                peers: [
                    WireGuardBytes.peer(endpoint: WireGuardBytes.socketAddress4(WireGuardBytes.v4)),
                    WireGuardBytes.peer(endpoint: WireGuardBytes.socketAddress6(WireGuardBytes.v6)),
                ])
        ]
        let words: [[UInt8]] = [[0, 0, 8, 0x80], [4, 0, 4, 0], [0xff, 0xff, 0, 0x80], [2, 0], [10, 0]]
        let mutator = Mutator(seeds: seeds, dictionary: words, maximumLength: 1024, seed: 0x7767_0001)
        let report = Fuzz.run("wireguard-message", count: 50_000, mutator: mutator) { input in
            WireGuardMessage.device(in: input).map { !$0.endpoints.isEmpty } ?? false
        }
        #expect(report.accepted > 100 && report.accepted < report.count)
        #expect(report.peakMemoryGrowthKiB < Fuzz.memoryBoundKiB)
    }
}

/// The watcher's use of a peer source: WireGuard links get their endpoints, others are left alone, and asking
/// again reports only what moved. The source is a stand-in: this machine has no wireguard module.
@Suite struct TunnelPeerCacheTests {
    final class Peers: TunnelPeerSource {
        var answers: [Int32: TunnelEndpoints] = [:]
        var asked: [Int32] = []
        func endpoints(ofLinkAt index: Int32) -> TunnelEndpoints? {
            asked.append(index)
            return answers[index]
        }
    }

    let wg = Link(index: 5, name: "wg0", flags: [.up, .running], linkKind: "wireguard", hardwareType: 65534)
    let eth = Link(index: 2, name: "eth0", flags: [.up, .running], linkKind: "veth")
    let first = TunnelEndpoints(remotes: [IPAddress(bytes: WireGuardBytes.v4)!], mark: 51820)
    let moved = TunnelEndpoints(remotes: [IPAddress(bytes: WireGuardBytes.v6)!], mark: 51820)

    @Test func fillsInWireGuardLinksAndReportsMovedEndpoints() {
        let peers = Peers()
        peers.answers[5] = first
        var cache = TunnelPeerCache(source: peers)
        let events = cache.enriched([.linkChanged(wg), .linkChanged(eth)])
        #expect(
            events == [
                .linkChanged(
                    Link(
                        index: 5, name: "wg0", flags: [.up, .running], linkKind: "wireguard", hardwareType: 65534,
                        tunnel: first)), .linkChanged(eth),
            ])
        #expect(peers.asked == [5])
        #expect(cache.refresh(except: []).isEmpty, "nothing moved")
        #expect(cache.refresh(except: [5]).isEmpty && peers.asked == [5, 5], "a link just asked is not asked again")
        peers.answers[5] = moved
        guard case .linkChanged(let link)? = cache.refresh(except: []).first else {
            Issue.record("a moved endpoint is a changed link")
            return
        }
        #expect(link.tunnel == moved && link.name == "wg0")
        _ = cache.enriched([.linkRemoved(index: 5)])
        #expect(cache.refresh(except: []).isEmpty)
    }

    /// A look-up that fails says nothing about the peers: the endpoints last known stay, so the carrier does not
    /// flap with every timeout.
    @Test func aFailedLookUpKeepsTheKnownEndpoints() {
        let peers = Peers()
        peers.answers[5] = first
        var cache = TunnelPeerCache(source: peers)
        _ = cache.enriched([.linkChanged(wg)])
        peers.answers[5] = nil
        #expect(cache.refresh(except: []).isEmpty)
        peers.answers[5] = first
        #expect(cache.refresh(except: []).isEmpty, "nothing moved, nothing was lost")
        peers.answers[5] = TunnelEndpoints(remotes: [], mark: 51820)
        #expect(cache.refresh(except: []).count == 1, "peers removed is news")
    }

    /// Only a change that may move the route to a peer (or anything: links, addresses, rules, nexthops) is worth a
    /// look-up per WireGuard link; a host route elsewhere is not.
    @Test func onlyChangesThatMayMoveAPeersRouteAskAgain() {
        let peers = Peers()
        peers.answers[5] = first
        var cache = TunnelPeerCache(source: peers)
        #expect(!cache.mayMove(RoutingChange.everything), "no WireGuard link yet")
        _ = cache.enriched([.linkChanged(wg)])
        #expect(cache.mayMove(RoutingChange.everything))
        #expect(cache.mayMove(RoutingChange(prefix: WireGuardBytes.v4, length: 32)))
        #expect(!cache.mayMove(RoutingChange(prefix: [10, 9, 9, 9], length: 32)))
        #expect(!cache.mayMove(RoutingChange()))
    }

    @Test func withoutASourceLinksPassThrough() {
        var cache = TunnelPeerCache(source: nil)
        #expect(cache.enriched([.linkChanged(wg)]) == [.linkChanged(wg)])
        #expect(cache.restart([wg]) == [wg])
    }

    @Test func theRealSourceWithoutTheFamilyLooksOncePerLink() throws {
        let namespace = try TestNetworkNamespace.withVethPair()
        defer { namespace.delete() }
        let source = try NetworkNamespace.run(in: namespace.path) { () throws(NetlinkError) in
            try WireGuardPeerSource()
        }
        // This kernel has no wireguard module: no family, no endpoints, and no lookup on every batch.
        #expect(source.endpoints(ofLinkAt: 5) == nil)
        #expect(source.endpoints(ofLinkAt: 5) == nil)
        #expect(source.familyLookups == 1)
        #expect(source.endpoints(ofLinkAt: 6) == nil)
        #expect(source.familyLookups == 2)
    }
}

extension TunnelPeerCache {
    /// The events as `enrich` leaves them (the watcher has its batch changed in place).
    fileprivate mutating func enriched(_ events: [KernelEvent]) -> [KernelEvent] {
        var events = events
        enrich(&events)
        return events
    }
}
