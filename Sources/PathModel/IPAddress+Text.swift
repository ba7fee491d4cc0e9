// SPDX-License-Identifier: Apache-2.0
// Text forms of IP addresses (RFC 5952 for IPv6), written here because the model imports nothing.

extension IPAddress: CustomStringConvertible {
    /// Dotted quad for IPv4; the canonical compressed form for IPv6. Written byte by byte into the string's own
    /// storage: every history entry and log line names addresses, and the generic interpolation and
    /// `String(_:radix:)` joined by `joined(separator:)` cost 8,000 instructions per IPv6 address.
    public var description: String {
        switch family {
        case .ipv4: String(unsafeUninitializedCapacity: 15) { writeIPv4($0) }
        case .ipv6: String(unsafeUninitializedCapacity: 39) { writeIPv6($0) }
        }
    }

    /// Writes the dotted quad; returns the bytes written.
    private func writeIPv4(_ buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var count = 0
        for index in 0..<4 {
            if index > 0 {
                buffer[count] = UInt8(ascii: ".")
                count += 1
            }
            let byte = self[byte: index]
            if byte >= 100 {
                buffer[count] = UInt8(ascii: "0") + byte / 100
                count += 1
            }
            if byte >= 10 {
                buffer[count] = UInt8(ascii: "0") + byte / 10 % 10
                count += 1
            }
            buffer[count] = UInt8(ascii: "0") + byte % 10
            count += 1
        }
        return count
    }

    /// Writes RFC 5952's form: lower-case groups without leading zeros, the longest run of two or more zero groups
    /// (the first on a tie) as "::". Returns the bytes written.
    private func writeIPv6(_ buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        func group(_ index: Int) -> UInt16 { UInt16(self[byte: 2 * index]) << 8 | UInt16(self[byte: 2 * index + 1]) }
        var best = (start: -1, length: 0)
        var index = 0
        while index < 8 {
            guard group(index) == 0 else {
                index += 1
                continue
            }
            let start = index
            while index < 8 && group(index) == 0 { index += 1 }
            if index - start > best.length { best = (start, index - start) }
        }
        if best.length < 2 { best = (-1, 0) }
        var count = 0
        func put(_ byte: UInt8) {
            buffer[count] = byte
            count += 1
        }
        index = 0
        while index < 8 {
            if index == best.start {
                put(UInt8(ascii: ":"))
                put(UInt8(ascii: ":"))
                index += best.length
                continue
            }
            if index > 0 && index != best.start + best.length { put(UInt8(ascii: ":")) }
            let value = group(index)
            var shift = 12
            while shift > 0 && value >> UInt16(shift) == 0 { shift -= 4 }
            while shift >= 0 {
                put(asciiHexDigit(UInt8(truncatingIfNeeded: value >> UInt16(shift)) & 0xf))
                shift -= 4
            }
            index += 1
        }
        return count
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

/// The lower-case hexadecimal digit of a value below 16.
@inlinable
public func asciiHexDigit(_ value: UInt8) -> UInt8 {
    value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
}
