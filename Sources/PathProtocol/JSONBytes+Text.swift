// SPDX-License-Identifier: Apache-2.0
import PathModel

/// What the streamed replies and history lines write piece by piece: strings, a cause's words, numbers. Each in
/// place, in the buffer's room, without a String or an array made on the way.
extension JSONBytes {
    /// A string's content, escaped as every JSON the daemon writes (`JSONWriter`), without its quotes: a literal
    /// written in pieces (a cause's words) is the literal of the pieces joined, since escaping goes byte by byte.
    mutating func escaped(_ value: String) {
        // Read in place (a small string from a copy on the stack): no copy of the String to make its bytes
        // contiguous, which is a retain and a release per piece.
        let done: Void? = value.utf8.withContiguousStorageIfAvailable { utf8 in escaped(utf8) }
        if done == nil {
            var value = value
            value.withUTF8 { escaped($0) }
        }
    }

    /// UTF-8 text's content, escaped.
    @inline(__always)
    mutating func escaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        if Self.needsNoEscape(utf8) {
            append(utf8)
        } else {
            appendEscaped(utf8)
        }
    }

    /// A string literal: quotes around the escaped content. Every reply and history line writes its strings so,
    /// byte for byte what `JSONWriter` writes (the writers' tests hold them to the codec).
    mutating func quoted(_ value: String) {
        raw("\"")
        escaped(value)
        raw("\"")
    }

    /// A number's decimal digits, two at a time (half the divisions of one at a time).
    mutating func decimal(_ value: UInt64) {
        var left = value
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            let pairs: StaticString = """
                00010203040506070809101112131415161718192021222324252627282930313233343536373839\
                40414243444546474849505152535455565758596061626364656667686970717273747576777879\
                8081828384858687888990919293949596979899
                """
            var start = digits.count
            pairs.withUTF8Buffer { pairs in
                while left >= 100 {
                    let pair = Int(left % 100) * 2
                    left /= 100
                    start -= 2
                    digits[start] = pairs[pair]
                    digits[start + 1] = pairs[pair + 1]
                }
                if left >= 10 {
                    start -= 2
                    digits[start] = pairs[Int(left) * 2]
                    digits[start + 1] = pairs[Int(left) * 2 + 1]
                } else {
                    start -= 1
                    digits[start] = UInt8(ascii: "0") + UInt8(left)
                }
            }
            append(UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// A signed number: its sign, then its magnitude's digits.
    mutating func decimal(_ value: Int64) {
        if value < 0 { raw("-") }
        decimal(value.magnitude)
    }

    /// Whether UTF-8 text is a string literal's content as it is (`JSONWriter.needsNoEscape`: no byte under 0x20,
    /// no quote, no backslash), eight bytes at a time (`PlainBytes`).
    @inline(__always)
    static func needsNoEscape(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        PlainBytes.none(of: utf8, belowSpaceOr: 0x22, 0x5C, asciiOnly: false)
    }

    /// The runs that need no escape copied whole, each byte that does written as `JSONWriter` writes it.
    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var start = 0
        for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
            append(UnsafeBufferPointer(rebasing: utf8[start..<index]))
            start = index + 1
            switch byte {
            case 0x22: raw(#"\""#)
            case 0x5C: raw(#"\\"#)
            case 0x08: raw(#"\b"#)
            case 0x0C: raw(#"\f"#)
            case 0x0A: raw(#"\n"#)
            case 0x0D: raw(#"\r"#)
            case 0x09: raw(#"\t"#)
            default:
                raw(#"\u00"#)
                let digits: StaticString = "0123456789abcdef"
                digits.withUTF8Buffer { hex in
                    append(UnsafeBufferPointer(rebasing: hex[Int(byte >> 4)...Int(byte >> 4)]))
                    append(UnsafeBufferPointer(rebasing: hex[Int(byte & 0x0F)...Int(byte & 0x0F)]))
                }
            }
        }
        append(UnsafeBufferPointer(rebasing: utf8[start...]))
    }
}

/// A cause's words go straight into the JSON string being written, escaped as they come.
extension JSONBytes: CauseWordsSink {
    mutating func append(_ text: String) { escaped(text) }

    mutating func append(constant text: StaticString) {
        text.withUTF8Buffer { escaped($0) }
    }
}
