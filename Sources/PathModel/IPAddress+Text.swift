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

    /// Parses a dotted-quad IPv4 address or an IPv6 address (with "::", without zone or embedded IPv4). Read as
    /// UTF-8 bytes, one pass, no substring: split into characters and substrings, a flow's two addresses were 27 K
    /// instructions of its WatchFlow call.
    public init?(_ text: String) {
        var text = text
        guard let address = text.withUTF8({ Self.parse($0) }) else { return nil }
        self = address
    }

    private static func parse(_ text: UnsafeBufferPointer<UInt8>) -> IPAddress? {
        text.contains(UInt8(ascii: ":")) ? parseIPv6(text) : parseIPv4(text)
    }

    /// Four decimal parts of one to three digits (leading zeros allowed), each at most 255.
    private static func parseIPv4(_ text: UnsafeBufferPointer<UInt8>) -> IPAddress? {
        var value: UInt64 = 0
        var part: UInt64 = 0
        var digits = 0
        var dots = 0
        for byte in text {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, dots < 3 else { return nil }
                value = value << 8 | part
                (part, digits, dots) = (0, 0, dots + 1)
                continue
            }
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10, digits < 3 else { return nil }
            part = part * 10 + UInt64(digit)
            digits += 1
            guard part <= 255 else { return nil }
        }
        guard digits > 0, dots == 3 else { return nil }
        return IPAddress(family: .ipv4, high: 0, low: value << 8 | part)
    }

    /// Groups of one to four hexadecimal digits separated by ":", eight of them, or fewer with one "::" standing
    /// for the zero groups left out (at least one).
    private static func parseIPv6(_ text: UnsafeBufferPointer<UInt8>) -> IPAddress? {
        var value: UInt128 = 0  // the groups so far, the last one lowest
        var count = 0
        var beforeGap: (value: UInt128, count: Int)?
        var group: UInt128 = 0
        var digits = 0
        var index = 0
        func endGroup() -> Bool {
            guard digits > 0, count < 8 else { return false }
            value = value << 16 | group
            count += 1
            (group, digits) = (0, 0)
            return true
        }
        func gap() -> Bool {
            guard beforeGap == nil else { return false }
            beforeGap = (value, count)
            value = 0
            index += 2
            return true
        }
        // "::" at the very start: no group before it.
        if text.count >= 2 && text[0] == UInt8(ascii: ":") && text[1] == UInt8(ascii: ":") { _ = gap() }
        while index < text.count {
            let byte = text[index]
            guard byte == UInt8(ascii: ":") else {
                guard let digit = hexDigitValue(byte), digits < 4 else { return nil }
                group = group << 4 | UInt128(digit)
                digits += 1
                index += 1
                continue
            }
            // A group ends here; a second ":" right after it is the gap (one at most), a single ":" must be
            // followed by another group.
            guard endGroup() else { return nil }
            if index + 1 < text.count && text[index + 1] == UInt8(ascii: ":") {
                guard gap() else { return nil }
            } else {
                index += 1
                guard index < text.count else { return nil }
            }
        }
        if digits > 0 && !endGroup() { return nil }
        let address: UInt128
        if let beforeGap {
            // The groups after the gap stay where they are (lowest); those before it move to the top.
            guard count <= 7 else { return nil }
            address = beforeGap.value << (16 * (8 - beforeGap.count)) | value
        } else {
            guard count == 8 else { return nil }
            address = value
        }
        return IPAddress(family: .ipv6, high: UInt64(address >> 64), low: UInt64(truncatingIfNeeded: address))
    }

    private static func hexDigitValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// The lower-case hexadecimal digit of a value below 16.
@inlinable
public func asciiHexDigit(_ value: UInt8) -> UInt8 {
    value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
}
