// SPDX-License-Identifier: Apache-2.0
import JSON
import PathModel

extension JSONBytes {
    /// A string's content, escaped as every JSON the daemon writes (`JSONWriter`), without its quotes: a literal
    /// written in pieces (a cause's words) is the literal of the pieces joined, since escaping goes byte by byte.
    mutating func escaped(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            if JSONWriter.needsNoEscape(utf8) {
                append(utf8)
            } else {
                appendEscaped(utf8)
            }
        }
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

    /// A string literal: quotes around the escaped content.
    mutating func quoted(_ value: String) {
        raw("\"")
        escaped(value)
        raw("\"")
    }
}

/// A cause's words go straight into the JSON string being written, escaped as they come.
extension JSONBytes: CauseWordsSink {
    mutating func append(_ text: String) { escaped(text) }
}
