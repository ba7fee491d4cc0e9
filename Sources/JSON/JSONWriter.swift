// SPDX-License-Identifier: Apache-2.0
/// JSON text from a `JSONValue`, compact and in the bytes JSONEncoder wrote with `.sortedKeys` and
/// `.withoutEscapingSlashes`, which the daemon used before it dropped Foundation (issue 25): clients, tests and the
/// history file saw those bytes, so they stay. Members are written in the value's order; `JSONValueEncoder` sorts
/// them.
public enum JSONWriter {
    public static func append(_ value: JSONValue, to bytes: inout [UInt8]) {
        switch value {
        case .null: bytes += "null".utf8
        case .bool(let flag): bytes += (flag ? "true" : "false").utf8
        case .number(let text): bytes += text.utf8
        case .string(let text): appendString(text, to: &bytes)
        case .array(let elements): appendArray(elements, to: &bytes) { append($0, to: &$1) }
        case .object(let members): appendObject(members, to: &bytes) { append($0, to: &$1) }
        }
    }

    /// `[a,b,...]`, each element written by `element`: a `JSONValue`'s, or the encoder's slots.
    public static func appendArray<Element>(
        _ elements: [Element], to bytes: inout [UInt8], _ element: (Element, inout [UInt8]) -> Void
    ) {
        bytes.append(UInt8(ascii: "["))
        for (position, value) in elements.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            element(value, &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// `{"name":value,...}` in the members' order, each value written by `value`.
    public static func appendObject<Value>(
        _ members: [(String, Value)], to bytes: inout [UInt8], _ value: (Value, inout [UInt8]) -> Void
    ) {
        bytes.append(UInt8(ascii: "{"))
        for (position, member) in members.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            appendString(member.0, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            value(member.1, &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// A string literal: quotes, backslashes and control characters escaped (the usual two-character escapes
    /// where JSON has one, `\u00XX` for the rest); every other byte, UTF-8 included, as it is.
    public static func appendString(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        // Most strings need no escape (names, addresses, states): copied as one buffer then, since the view's own
        // iteration cost a dozen instructions a byte.
        let copied = text.utf8.withContiguousStorageIfAvailable { utf8 in
            guard needsNoEscape(utf8) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if copied == true {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += #"\""#.utf8
            case UInt8(ascii: "\\"): bytes += #"\\"#.utf8
            case 0x08: bytes += #"\b"#.utf8
            case 0x0C: bytes += #"\f"#.utf8
            case 0x0A: bytes += #"\n"#.utf8
            case 0x0D: bytes += #"\r"#.utf8
            case 0x09: bytes += #"\t"#.utf8
            case 0x00..<0x20:
                bytes += #"\u00"#.utf8
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Whether UTF-8 text is a string literal's content as it is: no quote, backslash or control character.
    public static func needsNoEscape(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        !utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
