// SPDX-License-Identifier: Apache-2.0
import CNetlink
import Glibc
import NetlinkTestSupport
import PathModel
import Testing

@testable import Netlink

/// The address reader takes five facts from each RTM_NEWADDR's attribute table (issue 41), as the link reader
/// does. libnl's address parser stays the oracle: on the kernel's own messages for IPv4 and IPv6, host, link and
/// global scope, point-to-point with a peer, tentative and not, both must read the same address.
@Suite(.serialized) struct AddressConversionTests {
    @Test func readsEveryAddressAsLibnlsAddressParserDoes() throws {
        let namespace = try TestNetworkNamespace(prefix: "pmac")
        defer { namespace.delete() }
        try namespace.batch([
            "link add veth0 index 10 type veth peer name veth1 index 20",
            "link set veth0 up",
            "link set veth1 up",
            "address add 10.1.0.1/24 dev veth0",
            "address add 192.0.2.5/32 dev veth0 scope host",
            "address add 2001:db8::1/64 dev veth0",
            "address add 2001:db8::2/64 dev veth0 nodad",
            "tuntap add mode tun name tun0",
            "address add 10.9.0.1 peer 10.9.0.2 dev tun0",
            "address add 2001:db8:9::1 peer 2001:db8:9::2 dev tun0 nodad",
        ])
        let messages = try RawDump.messages(Int32(RTM_GETADDR), answeredBy: Int32(RTM_NEWADDR), in: namespace)
        var read: [InterfaceAddress] = []
        for message in messages {
            let expected = try #require(LibnlObjectOracle.address(message))
            let address = try #require(Self.convert(message), "\(expected) was read as nothing")
            #expect(address == expected)
            read.append(address)
        }
        let texts = Set(read.map { "\($0.address)/\($0.prefixLength) \($0.scope) \($0.isTentative)" })
        #expect(texts.contains("10.9.0.1/32 universe false"), "the local end of a point-to-point address, not its peer")
        #expect(texts.contains("2001:db8:9::1/128 universe false"))
        #expect(texts.contains("192.0.2.5/32 host false") && texts.contains("2001:db8::2/64 universe false"))
        // Tentative or not as DAD goes by the time of the dump (the oracle said which): present either way.
        #expect(texts.contains("2001:db8::1/64 universe true") || texts.contains("2001:db8::1/64 universe false"))
    }

    /// Cut short, of another family, or with an address of the wrong length: never an address.
    @Test func whatIsNotAnAddressIsSaidSo() {
        let ipv4: [UInt8] = [192, 0, 2, 1]
        #expect(Self.describe(family: AF_INET, attributes: [(2, ipv4)]) == "192.0.2.1/24")  // IFA_LOCAL
        #expect(Self.describe(family: AF_INET, attributes: [(1, ipv4)]) == "192.0.2.1/24")  // IFA_ADDRESS alone
        #expect(Self.describe(family: AF_INET, attributes: [(2, [192, 0, 2])]) == "malformed")
        #expect(Self.describe(family: AF_INET6, attributes: [(1, ipv4)]) == "malformed")
        #expect(Self.describe(family: AF_INET, attributes: []) == "malformed")
        #expect(Self.describe(family: AF_PACKET, attributes: [(2, ipv4)]) == "not relevant")
        // IFA_FLAGS (8) says tentative where the header's eight bits say nothing.
        #expect(
            Self.describe(family: AF_INET, attributes: [(2, ipv4), (8, [0x40, 0, 0, 0])]) == "192.0.2.1/24 tentative")
    }

    private static func convert(_ message: [UInt8]) -> InterfaceAddress? {
        var message = message
        return message.withUnsafeMutableBytes { bytes in
            guard
                let events = AddressConversion.events(
                    from: bytes.baseAddress!.assumingMemoryBound(to: nlmsghdr.self), removed: false
                ).events,
                case .addressAdded(let address) = events.first
            else { return nil }
            return address
        }
    }

    /// An RTM_NEWADDR for interface 7, prefix 24, global scope, with `attributes`, as the reader reads it.
    private static func describe(family: Int32, attributes: [(UInt16, [UInt8])]) -> String {
        var body: [UInt8] = [UInt8(family), 24, 0, 0] + RouteLookupMessage.littleEndianBytes(UInt32(7))
        for (kind, value) in attributes { body += RouteLookupMessage.attribute(kind, value) }
        var message = RouteLookupMessage.littleEndianBytes(UInt32(16 + body.count))
        message += RouteLookupMessage.littleEndianBytes(UInt16(RTM_NEWADDR)) + [UInt8](repeating: 0, count: 10) + body
        return message.withUnsafeMutableBytes { bytes in
            switch AddressConversion.events(
                from: bytes.baseAddress!.assumingMemoryBound(to: nlmsghdr.self), removed: false)
            {
            case .converted(let event):
                guard case .addressAdded(let address) = event else { return "other" }
                return "\(address.address)/\(address.prefixLength)" + (address.isTentative ? " tentative" : "")
            case .convertedHops: return "hops"
            case .notRelevant: return "not relevant"
            case .malformed: return "malformed"
            }
        }
    }
}
