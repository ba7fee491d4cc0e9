// SPDX-License-Identifier: Apache-2.0
import FuzzSupport
import PathModel
import Testing

@testable import Netlink

/// RTM_NEWNEXTHOP payloads built here from linux/nexthop.h's layout: struct nhmsg (family, scope, protocol,
/// reserved, u32 flags), then NHA_* attributes; struct nexthop_grp is u32 id, u8 weight, u8 weight_high, u16.
enum NexthopBytes {
    static func attribute(_ kind: UInt16, _ value: [UInt8]) -> [UInt8] {
        RouteLookupMessage.attribute(kind, value)
    }

    static func u32(_ value: UInt32) -> [UInt8] { RouteLookupMessage.littleEndianBytes(value) }

    static func header(family: UInt8 = 2) -> [UInt8] { [family, 0xfd, 4, 0] + u32(0) }

    /// `ip nexthop add id ID via GATEWAY dev INDEX`.
    static func single(id: UInt32, interface: UInt32, gateway: [UInt8]) -> [UInt8] {
        header(family: gateway.count == 4 ? 2 : 10) + attribute(1, u32(id)) + attribute(6, gateway)
            + attribute(5, u32(interface))
    }

    /// `ip nexthop add id ID group A/B...`.
    static func group(id: UInt32, members: [UInt32]) -> [UInt8] {
        let entries: [UInt8] = members.flatMap { (member: UInt32) -> [UInt8] in u32(member) + [1, 0, 0, 0] }
        return header(family: 0) + attribute(1, u32(id)) + attribute(2, entries) + attribute(3, [0, 0])
    }
}

@Suite struct NexthopMessageTests {
    @Test func readsASingleNexthop() {
        let bytes = NexthopBytes.single(id: 7, interface: 3, gateway: [192, 0, 2, 1])
        #expect(
            NexthopMessage.parse(bytes)
                == .nexthop(Nexthop(id: 7, interfaceIndex: 3, gateway: IPAddress(bytes: [192, 0, 2, 1]))))
    }

    @Test func readsAnIPv6Gateway() {
        let gateway: [UInt8] = [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1]
        let bytes = NexthopBytes.single(id: 3, interface: 2, gateway: gateway)
        #expect(
            NexthopMessage.parse(bytes)
                == .nexthop(Nexthop(id: 3, interfaceIndex: 2, gateway: IPAddress(bytes: gateway))))
    }

    @Test func readsAGroupInOrder() {
        #expect(
            NexthopMessage.parse(NexthopBytes.group(id: 10, members: [2, 1]))
                == .nexthop(Nexthop(id: 10, group: [2, 1])))
    }

    @Test func readsABlackhole() {
        let bytes =
            NexthopBytes.header() + NexthopBytes.attribute(1, NexthopBytes.u32(4)) + NexthopBytes.attribute(4, [])
        #expect(NexthopMessage.parse(bytes) == .nexthop(Nexthop(id: 4, isBlackhole: true)))
    }

    @Test func skipsBridgeNexthops() {
        let bytes = NexthopBytes.single(id: 7, interface: 3, gateway: [192, 0, 2, 1]) + NexthopBytes.attribute(11, [])
        #expect(NexthopMessage.parse(bytes) == .notRelevant)
    }

    @Test(arguments: [
        [UInt8](),  // no nhmsg
        NexthopBytes.header(),  // no id
        NexthopBytes.header() + NexthopBytes.attribute(1, NexthopBytes.u32(0)),  // id 0 is "assign one"
        NexthopBytes.header() + NexthopBytes.attribute(1, NexthopBytes.u32(9)) + NexthopBytes.attribute(2, [1, 0, 0]),
        NexthopBytes.header() + NexthopBytes.attribute(1, NexthopBytes.u32(9)) + NexthopBytes.attribute(6, [1, 2, 3]),
        NexthopBytes.header() + NexthopBytes.attribute(1, NexthopBytes.u32(9)) + NexthopBytes.attribute(5, [1]),
    ])
    func rejectsMalformedMessages(bytes: [UInt8]) {
        #expect(NexthopMessage.parse(bytes) == .malformed)
    }

    @Test func survivesMutatedMessages() {
        let seeds = [
            NexthopBytes.single(id: 7, interface: 3, gateway: [192, 0, 2, 1]),
            NexthopBytes.group(id: 10, members: [1, 2, 3]),
        ]
        let words: [[UInt8]] = [
            [0, 0, 1, 0], [4, 0, 2, 0], [0xff, 0xff, 6, 0], [8, 0, 5, 0, 0xff, 0xff, 0xff, 0xff],
        ]
        let mutator = Mutator(seeds: seeds, dictionary: words, maximumLength: 512, seed: 0x6e68_0001)
        let report = Fuzz.run("nexthop-message", count: 50_000, mutator: mutator) { input in
            if case .nexthop = NexthopMessage.parse(input) { return true }
            return false
        }
        #expect(report.accepted > 100 && report.accepted < report.count)
        #expect(report.peakMemoryGrowthKiB < Fuzz.memoryBoundKiB)
    }
}
