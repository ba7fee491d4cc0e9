// SPDX-License-Identifier: Apache-2.0
import CNetlink
import Glibc
import NetlinkTestSupport
import PathModel
import Testing

@testable import Netlink

/// The link reader takes six facts from each RTM_NEWLINK's attribute table (issue 41: libnl's link object parser
/// cost a tenth of a carrier flip). libnl's object parser stays the oracle: on the kernel's own messages for every
/// kind of link this machine makes (veth, bridge, macvlan, tun, tap: the kernels here build no vlan, dummy or IP
/// tunnel), up and down, with and without an address, both must read the same link.
@Suite(.serialized) struct LinkConversionTests {
    @Test func readsEveryKindOfLinkAsLibnlsLinkParserDoes() throws {
        let namespace = try TestNetworkNamespace(prefix: "pmlc")
        defer { namespace.delete() }
        try namespace.batch([
            "link add veth0 index 10 type veth peer name veth1 index 20",
            "link set veth0 address 02:00:5e:10:00:01 mtu 1400",
            "link set veth0 up",
            "link add br0 type bridge",
            "link set veth1 master br0",
            "link add mv0 link veth0 type macvlan mode bridge",
            "tuntap add mode tun name tun0",
            "tuntap add mode tap name tap0",
            "link set br0 up",
            "link set mv0 up",
        ])
        let messages = try RawDump.messages(Int32(RTM_GETLINK), answeredBy: Int32(RTM_NEWLINK), in: namespace)
        let names = messages.compactMap { LibnlObjectOracle.link($0)?.name }
        #expect(Set(["lo", "veth0", "veth1", "br0", "mv0", "tun0", "tap0"]).isSubset(of: names))
        for message in messages {
            let expected = try #require(LibnlObjectOracle.link(message))
            let read = message.withUnsafeBytes { bytes -> Link? in
                let header = UnsafeMutableRawPointer(mutating: bytes.baseAddress!).assumingMemoryBound(
                    to: nlmsghdr.self)
                guard case .converted(.linkChanged(let link)) = LinkConversion.events(from: header, removed: false)
                else { return nil }
                return link
            }
            let link = try #require(read, "\(expected.name) was read as nothing")
            #expect(link.index == expected.index && link.name == expected.name, "\(expected.name)")
            #expect(link.flags == expected.flags, "\(expected.name)")
            #expect(link.operState == expected.operState, "\(expected.name)")
            #expect(link.linkKind == expected.linkKind, "\(expected.name)")
            #expect(link.hardwareType == expected.hardwareType, "\(expected.name)")
            #expect(link.hardwareAddress == expected.hardwareAddress, "\(expected.name)")
        }
        let veth = try #require(messages.compactMap(LibnlObjectOracle.link).first { $0.name == "veth0" })
        #expect(veth.linkKind == "veth" && veth.hardwareAddress == "02:00:5e:10:00:01")
    }

    /// A message cut short or with a name that runs past its attribute is malformed, never a link.
    @Test func aNameWithoutItsEndIsMalformed() {
        var message = Self.linkMessage(index: 7, attributes: [(3, Array("eth0".utf8))])  // IFLA_IFNAME, no NUL
        #expect(Self.convert(&message) == "malformed")
        message = Self.linkMessage(index: 7, attributes: [(3, Array("eth0\0".utf8)), (16, [6])])  // IFLA_OPERSTATE up
        #expect(Self.convert(&message) == "eth0 up")
        message = Self.linkMessage(index: 7, attributes: [(3, Array("eth0\0".utf8)), (11, [])])  // IFLA_WIRELESS
        #expect(Self.convert(&message) == "not relevant")
        message = Self.linkMessage(index: 0, attributes: [(3, Array("eth0\0".utf8))])
        #expect(Self.convert(&message) == "malformed")
    }

    private static func convert(_ message: inout [UInt8]) -> String {
        message.withUnsafeMutableBytes { bytes in
            switch LinkConversion.events(
                from: bytes.baseAddress!.assumingMemoryBound(to: nlmsghdr.self), removed: false)
            {
            case .converted(let event):
                guard case .linkChanged(let link) = event else { return "other" }
                return "\(link.name) \(link.operState)"
            case .convertedHops: return "hops"
            case .notRelevant: return "not relevant"
            case .malformed: return "malformed"
            }
        }
    }

    /// An RTM_NEWLINK (AF_UNSPEC) with `attributes` after its ifinfomsg.
    private static func linkMessage(index: Int32, attributes: [(UInt16, [UInt8])]) -> [UInt8] {
        var body = [UInt8](repeating: 0, count: MemoryLayout<ifinfomsg>.size)
        withUnsafeBytes(of: index.littleEndian) { body.replaceSubrange(4..<8, with: $0) }
        for (kind, value) in attributes { body += RouteLookupMessage.attribute(kind, value) }
        var message = RouteLookupMessage.littleEndianBytes(UInt32(16 + body.count))
        message += RouteLookupMessage.littleEndianBytes(UInt16(RTM_NEWLINK))
        message += [UInt8](repeating: 0, count: 10)
        return message + body
    }
}
