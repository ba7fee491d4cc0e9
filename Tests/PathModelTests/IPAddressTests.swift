// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PathModel

@Suite struct IPAddressTests {
    /// Canonical texts: parsing then printing gives the same text back.
    @Test(arguments: [
        "0.0.0.0", "255.255.255.255", "192.168.1.1", "10.0.0.254",
        "::", "::1", "1::", "2001:db8::1", "fe80::1", "ff02::2", "2001:db8::1:0:0:1", "2001:0:0:1::1",
        "2001:db8:0:1:1:1:1:1", "1:2:3:4:5:6:7:0", "0:1:2:3:4:5:6:7", "1:0:2:0:3:0:4:0",
        "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff",
    ])
    func roundTrips(_ text: String) throws {
        let address = try #require(IPAddress(text))
        #expect(address.description == text)
        #expect(IPAddress(address.description) == address)
    }

    /// RFC 5952 section 4: lower case, no leading zeros, the longest zero run (the first on a tie) becomes "::",
    /// a single zero group is never compressed.
    @Test(arguments: [
        ("2001:DB8::1", "2001:db8::1"),
        ("2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"),
        ("2001:db8::0:1", "2001:db8::1"),
        ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
        ("2001:0:0:1:0:0:0:1", "2001:0:0:1::1"),
        ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),
        ("2001:db8::1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),
        ("0:0:0:0:0:0:0:0", "::"),
        ("0:0:0:0:0:0:0:1", "::1"),
        ("1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0"),
        ("FE80:0000::0001", "fe80::1"),
    ])
    func printsTheCanonicalForm(_ text: String, _ canonical: String) throws {
        #expect(try #require(IPAddress(text)).description == canonical)
    }

    @Test func parsesIntoNetworkOrderBytes() throws {
        let v4 = try #require(IPAddress("10.1.2.3"))
        #expect(v4.family == .ipv4 && v4.bytes == [10, 1, 2, 3])
        let v6 = try #require(IPAddress("2001:db8::a:b"))
        #expect(v6.family == .ipv6)
        #expect(v6.bytes == [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0a, 0, 0x0b])
    }

    @Test(arguments: [
        "", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1..2.3", "1.2.3.", ".1.2.3", "1.2.3.4 ", " 1.2.3.4", "a.b.c.d",
        "1.2.3.0x1", "0001.2.3.4", "1.2.3.-1", "1.2.3.4/24",
        ":", ":::", "::1::", "1::2::3", ":1::", "::1:", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7:8::",
        "::1:2:3:4:5:6:7:8", "12345::", "g::", "fe80::1%eth0", "::ffff:1.2.3.4", "1:2:3:4:5:6:7:8:", "2001:db8:::1",
    ])
    func rejects(_ text: String) {
        #expect(IPAddress(text) == nil)
    }

    // Swift's integer parsers accept a sign, so "+1.2.3.4" parses
    // as 1.2.3.4 and "::+1" as ::1. inet_pton refuses both; a configuration or protocol field holding them should
    // be refused too, so the parser checks that every character is a digit.
    @Test(arguments: ["+1.2.3.4", "1.+2.3.4", "::+1", "+1::", "1:2:3:4:5:6:7:+8"])
    func rejectsSigns(_ text: String) {
        #expect(IPAddress(text) == nil)
    }

    @Test(arguments: [
        [], [1, 2, 3], [1, 2, 3, 4, 5], [UInt8](repeating: 0, count: 15), [UInt8](repeating: 0, count: 17),
    ])
    func refusesByteCountsOtherThanFourOrSixteen(_ bytes: [UInt8]) {
        #expect(IPAddress(bytes: bytes) == nil)
    }

    @Test(arguments: [
        ("169.254.0.1", true), ("169.254.255.255", true), ("169.253.0.1", false), ("10.0.0.1", false),
        ("fe80::1", true), ("febf::1", true), ("fec0::1", false), ("fe7f::1", false), ("2001:db8::1", false),
    ])
    func knowsLinkLocal(_ text: String, _ expected: Bool) {
        #expect(ip(text).isLinkLocal == expected)
    }

    @Test(arguments: [
        ("127.0.0.1", true), ("127.255.0.9", true), ("128.0.0.1", false), ("::1", true), ("::", false),
        ("::2", false), ("1::1", false),
    ])
    func knowsLoopback(_ text: String, _ expected: Bool) {
        #expect(ip(text).isLoopback == expected)
    }

    @Test(arguments: [
        ("192.168.1.9", 23, "192.168.0.0"), ("10.1.2.3", 0, "0.0.0.0"), ("10.1.2.3", 32, "10.1.2.3"),
        ("10.1.2.3", 40, "10.1.2.3"), ("10.255.2.3", 9, "10.128.0.0"),
        ("2001:db8::8000:0:0:1", 65, "2001:db8:0:0:8000::"),
        ("2001:db8:1:2:3:4:5:6", 32, "2001:db8::"), ("2001:db8:1:2:3:4:5:6", 128, "2001:db8:1:2:3:4:5:6"),
        ("fe80::1", 0, "::"),
    ])
    func aNetworkIsItsAddressWithoutTheHostBits(address: String, length: Int, network: String) throws {
        let network = try #require(IPAddress(network))
        let computed = try #require(IPAddress(address)).network(prefixLength: length)
        #expect(computed == network)
        #expect(try #require(IPAddress(address)).hasPrefix(computed, length: length))
    }

    /// Stored in place (as a kernel request writes it), at any offset: the bytes read one by one, the neighbours
    /// untouched.
    @Test(arguments: ["192.0.2.10", "255.0.0.1", "2001:db8::1", "fe80::1:2:3:4", "ffff::ff"])
    func storedBytesAreTheNetworkOrderBytes(text: String) {
        let address = ip(text)
        for offset in [0, 1, 3] {
            var buffer = [UInt8](repeating: 0xAA, count: offset + address.byteCount + 2)
            buffer.withUnsafeMutableBytes { address.storeBytes(into: $0, toByteOffset: offset) }
            let byByte = (0..<address.byteCount).map { address[byte: $0] }
            #expect(Array(buffer[offset..<offset + address.byteCount]) == byByte, "at \(offset)")
            #expect(buffer[..<offset].allSatisfy { $0 == 0xAA } && buffer.suffix(2) == [0xAA, 0xAA])
        }
    }

    @Test func ordersIPv4BeforeIPv6ThenByBytes() {
        let sorted = ["::1", "10.0.0.2", "2001:db8::1", "10.0.0.10", "9.255.255.255"].map(ip).sorted()
        #expect(sorted.map(\.description) == ["9.255.255.255", "10.0.0.2", "10.0.0.10", "::1", "2001:db8::1"])
    }

    /// Held as two words, the address still reads back byte for byte, hashes by value, and unmaps IPv4.
    @Test func bytesSurviveTheInlineForm() throws {
        let v6 = ip("2001:db8:1:2:3:4:5:6")
        #expect((0..<16).map { v6[byte: $0] } == v6.bytes)
        #expect(IPAddress(bytes: v6.bytes) == v6)
        #expect(Set([ip("10.0.0.1"), ip("10.0.0.1"), ip("::a00:1")]).count == 2)  // same number, other family
        #expect(ip("::ffff:a01:203").unmappingIPv4 == ip("10.1.2.3"))
        #expect(ip("::fffe:a01:203").unmappingIPv4 == ip("::fffe:a01:203"))
        #expect(ip("10.0.0.1") != ip("::a00:1"))
    }

    @Test(arguments: [
        ("10.1.2.3", "10.0.0.0", 8, true), ("10.1.2.3", "10.0.0.0", 16, false), ("10.1.2.3", "0.0.0.0", 0, true),
        ("10.1.2.3", "10.1.2.3", 32, true), ("10.1.2.3", "10.1.2.2", 31, true), ("10.1.2.3", "10.1.2.2", 32, false),
        ("10.1.2.3", "::", 0, false),  // never across families
        ("2001:db8::1", "2001:db8::", 32, true), ("2001:db9::1", "2001:db8::", 32, false),
        ("2001:db8:0:0:8000::", "2001:db8::", 64, true), ("2001:db8:0:0:8000::", "2001:db8::", 65, false),
        ("2001:db8::1", "2001:db8::", 127, true), ("2001:db8::1", "2001:db8::", 128, false),
    ])
    func matchesPrefixes(_ text: String, _ prefix: String, _ length: Int, _ expected: Bool) {
        #expect(ip(text).hasPrefix(ip(prefix), length: length) == expected)
    }

    /// The text written byte by byte equals RFC 5952's form spelled out plainly (groups as `String(_:radix:)`,
    /// the first longest run of two or more zero groups as "::") for every pattern of zero and non-zero groups,
    /// with group values of one to four digits, and for every IPv4 byte value in each position.
    @Test func writesTheSameTextAsThePlainSpelling() throws {
        let values: [UInt16] = [1, 0xa, 0x1f, 0x2ab, 0xffff, 0x1000]
        for pattern in 0..<256 {
            let groups = (0..<8).map { pattern >> $0 & 1 == 1 ? values[($0 + pattern) % values.count] : UInt16(0) }
            let bytes = groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] }
            let address = try #require(IPAddress(bytes: bytes))
            #expect(address.description == Self.plainIPv6Text(groups), "groups \(groups)")
            #expect(IPAddress(address.description) == address)
        }
        for value in 0...255 {
            for position in 0..<4 {
                var bytes: [UInt8] = [192, 0, 2, 7]
                bytes[position] = UInt8(value)
                let address = try #require(IPAddress(bytes: bytes))
                #expect(address.description == bytes.map { String($0) }.joined(separator: "."))
            }
        }
    }

    private static func plainIPv6Text(_ groups: [UInt16]) -> String {
        var best = (start: -1, length: 0)
        var index = 0
        while index < 8 {
            if groups[index] != 0 {
                index += 1
                continue
            }
            let start = index
            while index < 8 && groups[index] == 0 { index += 1 }
            if index - start > best.length { best = (start, index - start) }
        }
        let hex = { (slice: ArraySlice<UInt16>) in slice.map { String($0, radix: 16) }.joined(separator: ":") }
        guard best.length >= 2 else { return hex(groups[...]) }
        return hex(groups[..<best.start]) + "::" + hex(groups[(best.start + best.length)...])
    }
}
