// SPDX-License-Identifier: Apache-2.0
import Glibc
import NetlinkTestSupport
import PathModel
import Testing

@testable import Netlink

/// RTM_GETSTATS built and its answer read by hand (`LinkStatsMessage`), on answers this machine's kernel (6.18)
/// sent, and the reader asking a real kernel in a namespace of the test's own, both ways (`LinkCounterReader`).
@Suite struct LinkStatsMessageTests {
    typealias Bytes = RouteLookupMessage

    /// The kernel's RTM_NEWSTATS to RTM_GETSTATS for index 2 with sequence 7, IFLA_STATS_LINK_64 only: a veth
    /// with 426 bytes received and 516 sent (IPv6's own chatter), a 200-byte rtnl_link_stats64.
    static let captured: [UInt8] = hex(
        "e80000005c000000070000009b700000" + "000000000200000001000000" + "cc000100"
            + "0500000000000000" + "0600000000000000" + "aa01000000000000" + "0402000000000000"
            + String(repeating: "00", count: 168))

    /// The kernel's answer to the same request for an index it has no interface at (sequence 8): ENODEV, with
    /// the request echoed.
    static let noSuchInterface: [UInt8] = hex(
        "3000000002000000080000009b700000edffffff1c0000005e000100080000000000000000000000e703000001000000")

    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var position = text.startIndex
        while position < text.endIndex {
            let next = text.index(position, offsetBy: 2)
            bytes.append(UInt8(text[position..<next], radix: 16)!)
            position = next
        }
        return bytes
    }

    static func answer(_ bytes: [UInt8], index: Int32, sequence: UInt32) -> LinkStatsMessage.Answer {
        bytes.withUnsafeBytes { LinkStatsMessage.answer($0, index: index, sequence: sequence) }
    }

    @Test func theRequestAsksForOneLinksCountersOnly() {
        var request = [UInt8](repeating: 0xAA, count: LinkStatsMessage.length)
        request.withUnsafeMutableBytes { LinkStatsMessage.write(index: 0x0102_0304, sequence: 9, into: $0) }
        #expect(
            request == [
                28, 0, 0, 0, 94, 0, 1, 0, 9, 0, 0, 0, 0, 0, 0, 0,
                0, 0, 0, 0, 0x04, 0x03, 0x02, 0x01, 1, 0, 0, 0,
            ])
    }

    @Test func theKernelsAnswerIsRead() {
        #expect(Self.captured.count == 232)
        #expect(Self.answer(Self.captured, index: 2, sequence: 7) == .counters(ByteCounts(sent: 516, received: 426)))
        // Another request's answer, or another interface's.
        #expect(Self.answer(Self.captured, index: 2, sequence: 8) == .unrelated)
        #expect(Self.answer(Self.captured, index: 3, sequence: 7) == .none)
        #expect(Self.answer(Self.noSuchInterface, index: 999, sequence: 8) == .none)
    }

    @Test func aKernelWithoutStatsRequestsIsToldApart() {
        var refused = Self.noSuchInterface
        refused.replaceSubrange(16..<20, with: Bytes.littleEndianBytes(UInt32(bitPattern: -95)))
        #expect(Self.answer(refused, index: 999, sequence: 8) == .unsupported)
    }

    /// A stats message with `attributes` after its if_stats_msg, for `index` and sequence 5.
    static func reply(index: Int32, attributes: [UInt8]) -> [UInt8] {
        var message: [UInt8] = []
        Bytes.appendLittleEndian(UInt32(28 + attributes.count), to: &message)
        Bytes.appendLittleEndian(UInt16(92), to: &message)
        Bytes.appendLittleEndian(UInt16(0), to: &message)
        Bytes.appendLittleEndian(UInt32(5), to: &message)
        Bytes.appendLittleEndian(UInt32(0), to: &message)
        message += [0, 0, 0, 0] + Bytes.littleEndianBytes(UInt32(bitPattern: index)) + [1, 0, 0, 0]
        return message + attributes
    }

    @Test func theCountersAreFoundAfterOtherAttributesAndInAnOlderKernelsShorterStruct() {
        var value: [UInt8] = []
        // 23 fields: the struct before Linux 4.6 added rx_nohandler.
        for field in [UInt64(7), 8, 0x1_0000_0001, 42] + [UInt64](repeating: 0, count: 19) {
            Bytes.appendLittleEndian(field, to: &value)
        }
        let message = Self.reply(index: 4, attributes: Bytes.attribute(2, [1, 2, 3]) + Bytes.attribute(1, value))
        #expect(Self.answer(message, index: 4, sequence: 5) == .counters(ByteCounts(sent: 42, received: 0x1_0000_0001)))
        // Too short to hold the byte counters, or no counters at all.
        let short = Self.reply(index: 4, attributes: Bytes.attribute(1, Array(value[..<24])))
        #expect(Self.answer(short, index: 4, sequence: 5) == .none)
        #expect(Self.answer(Self.reply(index: 4, attributes: Bytes.attribute(2, [1])), index: 4, sequence: 5) == .none)
    }

    @Test func aCutAnswerIsNeverAReading() {
        for length in 0..<Self.captured.count {
            // Cut, and cut with the header's length left as it was.
            var lying = Array(Self.captured[..<length])
            if length >= 4 { lying.replaceSubrange(0..<4, with: Bytes.littleEndianBytes(UInt32(length))) }
            for bytes in [Array(Self.captured[..<length]), lying] {
                if case .counters = Self.answer(bytes, index: 2, sequence: 7) {
                    Issue.record("a cut answer read as counters at \(length) bytes")
                }
            }
        }
    }

    /// eth0 in a test namespace, its peer on the far side, both without IPv6 addresses (no chatter) and the
    /// gateway's neighbour entry fixed (no ARP): nothing crosses but what the test sends.
    static func quietLink() throws -> (TestNetworkNamespace, Int32) {
        let namespace = try TestNetworkNamespace(prefix: "pmls")
        do {
            try namespace.ip("link add name eth0 type veth peer name eth0-peer netns \(namespace.far)")
            try namespace.ip("link set eth0 addrgenmode none")
            try namespace.farIP("link set eth0-peer addrgenmode none")
            try namespace.farIP("link set eth0-peer up")
            try namespace.ip("link set eth0 up")
            try namespace.ip("address add 192.0.2.10/24 dev eth0")
            try namespace.ip("neigh add 192.0.2.1 lladdr 02:00:00:00:00:01 dev eth0 nud permanent")
            return (namespace, try namespace.index(of: "eth0"))
        } catch {
            namespace.delete()
            throw error
        }
    }

    /// Sends `count` UDP datagrams of `size` bytes to the gateway's address from inside `namespace`.
    static func send(_ count: Int, of size: Int, in namespace: TestNetworkNamespace) throws {
        try NetworkNamespace.run(in: namespace.path) { () throws(NetlinkError) in
            let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            guard descriptor >= 0 else { throw .system(errno: errno) }
            defer { close(descriptor) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(9).bigEndian
            inet_pton(AF_INET, "192.0.2.1", &address.sin_addr)
            let payload = [UInt8](repeating: 0x78, count: size)
            for _ in 0..<count {
                let sent = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(descriptor, payload, size, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
                guard sent == size else { throw .system(errno: errno) }
            }
        }
    }

    @Test func theKernelsCountersAreReadBothWaysAndAgree() throws {
        let (namespace, index) = try Self.quietLink()
        defer { namespace.delete() }
        let reader = try NetworkNamespace.run(in: namespace.path) { () throws(NetlinkError) in
            try LinkCounterReader()
        }
        guard case .counters(let before) = reader.statsCounters(index: index) else {
            Issue.record("no counters from RTM_GETSTATS")
            return
        }
        #expect(reader.linkCounters(index: index) == before)
        try Self.send(5, of: 1000, in: namespace)
        // Each datagram: 1000 bytes, the UDP and IPv4 headers (28) and the Ethernet header (14); nothing back.
        let after = ByteCounts(sent: before.sent + 5 * 1042, received: before.received)
        #expect(reader.counters(index: index) == after)
        #expect(reader.linkCounters(index: index) == after)
        #expect(reader.asksStats)
        // No interface there: no reading either way.
        #expect(reader.counters(index: 9999) == nil)
        #expect(reader.statsCounters(index: 9999) == .none)
        #expect(reader.linkCounters(index: 9999) == nil)
    }
}
