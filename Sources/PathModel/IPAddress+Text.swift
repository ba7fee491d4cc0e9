// SPDX-License-Identifier: Apache-2.0
// Text forms of IP addresses (RFC 5952 for IPv6), written here because the model imports nothing.

extension IPAddress: CustomStringConvertible {
    /// Dotted quad for IPv4; the canonical compressed form for IPv6.
    public var description: String {
        switch family {
        case .ipv4: return "\(self[byte: 0]).\(self[byte: 1]).\(self[byte: 2]).\(self[byte: 3])"
        case .ipv6: return ipv6Text
        }
    }

    private var ipv6Text: String {
        let groups = stride(from: 0, to: 16, by: 2).map { UInt16(self[byte: $0]) << 8 | UInt16(self[byte: $0 + 1]) }
        // The longest run of two or more zero groups becomes "::" (the first such run on a tie).
        var best = (start: -1, length: 0)
        var index = 0
        while index < groups.count {
            guard groups[index] == 0 else {
                index += 1
                continue
            }
            let start = index
            while index < groups.count && groups[index] == 0 { index += 1 }
            if index - start > best.length { best = (start, index - start) }
        }
        func hex(_ slice: ArraySlice<UInt16>) -> String {
            slice.map { String($0, radix: 16) }.joined(separator: ":")
        }
        guard best.length >= 2 else { return hex(groups[...]) }
        return hex(groups[..<best.start]) + "::" + hex(groups[(best.start + best.length)...])
    }

    /// Parses a dotted-quad IPv4 address or an IPv6 address (with "::", without zone or embedded IPv4).
    public init?(_ text: String) {
        if text.contains(":") {
            guard let bytes = IPAddress.parseIPv6(text) else { return nil }
            self.init(bytes: bytes)
        } else {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 4 else { return nil }
            var bytes: [UInt8] = []
            for part in parts {
                guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCIIDigit), let value = UInt8(part) else {
                    return nil
                }
                bytes.append(value)
            }
            self.init(bytes: bytes)
        }
    }

    private static func parseIPv6(_ text: String) -> [UInt8]? {
        let halves = text.components(separatedByDoubleColon: ())
        guard halves.count <= 2 else { return nil }
        func groups(_ part: Substring) -> [UInt16]? {
            if part.isEmpty { return [] }
            var result: [UInt16] = []
            for group in part.split(separator: ":", omittingEmptySubsequences: false) {
                guard !group.isEmpty, group.count <= 4, group.allSatisfy(\.isASCIIHexDigit),
                    let value = UInt16(group, radix: 16)
                else { return nil }
                result.append(value)
            }
            return result
        }
        guard let head = groups(halves[0]) else { return nil }
        var all = head
        if halves.count == 2 {
            guard let tail = groups(halves[1]), head.count + tail.count <= 7 else { return nil }
            all += Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        }
        guard all.count == 8 else { return nil }
        return all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] }
    }
}

extension String {
    /// Splits at "::" (the IPv6 zero-run marker); more than two parts means the text was malformed.
    fileprivate func components(separatedByDoubleColon _: Void) -> [Substring] {
        var parts: [Substring] = []
        var start = startIndex
        var index = startIndex
        while index < endIndex {
            let next = self.index(after: index)
            if self[index] == ":" && next < endIndex && self[next] == ":" {
                parts.append(self[start..<index])
                start = self.index(after: next)
                index = start
            } else {
                index = next
            }
        }
        parts.append(self[start..<endIndex])
        return parts
    }
}

extension Character {
    /// 0-9 only: integer parsers also take a sign, which no address text has.
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }

    fileprivate var isASCIIHexDigit: Bool { isASCIIDigit || ("a"..."f").contains(self) || ("A"..."F").contains(self) }
}
