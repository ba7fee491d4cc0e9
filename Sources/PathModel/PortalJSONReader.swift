// SPDX-License-Identifier: Apache-2.0
// A strict RFC 8259 reader for one small document: the captive-portal API's answer. Written by hand because the
// model imports nothing.

/// A JSON value as the API parser needs it: scalars kept, arrays and objects only checked and skipped.
enum PortalJSONValue: Hashable {
    case boolean(Bool)
    /// The number's text, as written (validated against RFC 8259's grammar).
    case number(String)
    case string(String)
    case null
    /// An array or object: checked for syntax, its contents not kept.
    case nested
}

/// Where and why the bytes stopped being JSON.
struct PortalJSONError: Error {
    var offset: Int
    var reason: String
}

struct PortalJSONReader {
    private let bytes: [UInt8]
    private var offset = 0
    /// Deeper nesting than an API answer could need is garbage; the limit keeps recursion off the stack's edge.
    private static let maximumDepth = 16

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The members of the one object the bytes hold, in order, with nothing but whitespace around it.
    static func parseObject(_ bytes: [UInt8]) throws(PortalJSONError) -> [(name: String, value: PortalJSONValue)] {
        var reader = PortalJSONReader(bytes)
        reader.skipWhitespace()
        guard reader.next == UInt8(ascii: "{") else { throw reader.error("expected an object") }
        let members = try reader.object(depth: 1)
        reader.skipWhitespace()
        guard reader.offset == bytes.count else { throw reader.error("unexpected text after the object") }
        return members
    }

    private var next: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    private func error(_ reason: String) -> PortalJSONError { PortalJSONError(offset: offset, reason: reason) }

    private mutating func skipWhitespace() {
        while let byte = next, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { offset += 1 }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(PortalJSONError) {
        skipWhitespace()
        guard next == byte else { throw error("expected \(what)") }
        offset += 1
    }

    /// An object, its "{" next.
    private mutating func object(depth: Int) throws(PortalJSONError) -> [(name: String, value: PortalJSONValue)] {
        offset += 1
        var members: [(name: String, value: PortalJSONValue)] = []
        skipWhitespace()
        if next == UInt8(ascii: "}") {
            offset += 1
            return members
        }
        while true {
            skipWhitespace()
            guard next == UInt8(ascii: "\"") else { throw error("expected a member name") }
            let name = try string()
            try expect(UInt8(ascii: ":"), "\":\"")
            members.append((name, try value(depth: depth)))
            skipWhitespace()
            switch next {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "}"):
                offset += 1
                return members
            default: throw error("expected \",\" or \"}\"")
            }
        }
    }

    private mutating func value(depth: Int) throws(PortalJSONError) -> PortalJSONValue {
        skipWhitespace()
        guard let byte = next else { throw error("unexpected end") }
        switch byte {
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard depth < Self.maximumDepth else { throw error("nested too deeply") }
            if byte == UInt8(ascii: "{") { _ = try object(depth: depth + 1) } else { try array(depth: depth + 1) }
            return .nested
        case UInt8(ascii: "t"): return try literal("true", .boolean(true))
        case UInt8(ascii: "f"): return try literal("false", .boolean(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        default: return .number(try number())
        }
    }

    private mutating func array(depth: Int) throws(PortalJSONError) {
        offset += 1
        skipWhitespace()
        if next == UInt8(ascii: "]") {
            offset += 1
            return
        }
        while true {
            _ = try value(depth: depth)
            skipWhitespace()
            switch next {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "]"):
                offset += 1
                return
            default: throw error("expected \",\" or \"]\"")
            }
        }
    }

    private mutating func literal(_ word: String, _ result: PortalJSONValue) throws(PortalJSONError) -> PortalJSONValue
    {
        let end = offset + word.utf8.count
        guard end <= bytes.count, bytes[offset..<end].elementsEqual(word.utf8) else { throw error("expected \(word)") }
        offset = end
        return result
    }

    /// RFC 8259's number: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
    private mutating func number() throws(PortalJSONError) -> String {
        let start = offset
        if next == UInt8(ascii: "-") { offset += 1 }
        if next == UInt8(ascii: "0") {
            offset += 1
        } else {
            guard try digits() > 0 else { throw error("expected a value") }
        }
        if next == UInt8(ascii: ".") {
            offset += 1
            guard try digits() > 0 else { throw error("expected a digit") }
        }
        if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            offset += 1
            if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { offset += 1 }
            guard try digits() > 0 else { throw error("expected a digit") }
        }
        return String(decoding: bytes[start..<offset], as: UTF8.self)
    }

    private mutating func digits() throws(PortalJSONError) -> Int {
        let start = offset
        while let byte = next, (0x30...0x39).contains(byte) { offset += 1 }
        return offset - start
    }

    /// A string, its opening quote next; escapes decoded, raw control characters and invalid UTF-8 refused.
    private mutating func string() throws(PortalJSONError) -> String {
        offset += 1
        var scalars = String.UnicodeScalarView()
        var run = offset
        func flush(_ reader: PortalJSONReader, upTo end: Int) throws(PortalJSONError) -> String.UnicodeScalarView {
            var view = String.UnicodeScalarView()
            var decoder = UTF8()
            var iterator = reader.bytes[run..<end].makeIterator()
            while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let scalar): view.append(scalar)
                case .emptyInput: return view
                case .error: throw PortalJSONError(offset: run, reason: "invalid UTF-8 in a string")
                }
            }
        }
        while true {
            guard let byte = next else { throw error("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                scalars.append(contentsOf: try flush(self, upTo: offset))
                offset += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                scalars.append(contentsOf: try flush(self, upTo: offset))
                offset += 1
                scalars.append(try escape())
                run = offset
            case 0..<0x20:
                throw error("a control character in a string")
            default:
                offset += 1
            }
        }
    }

    /// One escape, after its backslash.
    private mutating func escape() throws(PortalJSONError) -> Unicode.Scalar {
        guard let byte = next else { throw error("unterminated string") }
        offset += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(byte)
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let unit = try hexUnit()
            if (0xD800..<0xDC00).contains(unit) {
                guard next == UInt8(ascii: "\\"), offset + 1 < bytes.count, bytes[offset + 1] == UInt8(ascii: "u")
                else { throw error("a lone surrogate") }
                offset += 2
                let low = try hexUnit()
                guard (0xDC00..<0xE000).contains(low) else { throw error("a lone surrogate") }
                // Both halves checked above: the combined value is a valid scalar above U+FFFF.
                return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!
            }
            guard let scalar = Unicode.Scalar(unit) else { throw error("a lone surrogate") }
            return scalar
        default:
            offset -= 1
            throw error("an unknown escape")
        }
    }

    private mutating func hexUnit() throws(PortalJSONError) -> UInt32 {
        guard offset + 4 <= bytes.count else { throw error("a short \\u escape") }
        var unit: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[offset]
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: throw error("a bad \\u escape")
            }
            unit = unit << 4 | digit
            offset += 1
        }
        return unit
    }
}
