// SPDX-License-Identifier: Apache-2.0
/// Where and why the bytes stopped being JSON.
public struct JSONSyntaxError: Error, Sendable, Hashable {
    /// What is wrong, for a caller that acts on one kind of damage and not another.
    public enum Kind: Sendable, Hashable {
        /// Not JSON at all: a stray byte, an unterminated string, nesting too deep.
        case malformed
        /// An object names this member twice. RFC 8259 leaves such an object's meaning to the reader (the first
        /// wins in one, the last in another), so two readers of one message could act on different values.
        case duplicateMember(String)
    }

    /// Offset of the offending byte from the start of the input; the input's length if it ended too early. For a
    /// duplicate member, its name's opening quote.
    public var offset: Int
    public var reason: String
    public var kind: Kind

    public init(offset: Int, reason: String, kind: Kind = .malformed) {
        self.offset = offset
        self.reason = reason
        self.kind = kind
    }
}

/// A strict RFC 8259 reader over bytes, the one JSON reader of the daemon's side (no Foundation there: issue 25).
/// Hand-written so that a damaged policy file can be read up to the damage (its recovering decoder drives
/// `parseValue` element by element and keeps what was whole), and so that a hostile client's call is bounded: in
/// nesting (`maximumDepth`) as in size (the caller's framing). An object that names a member twice is refused
/// (``JSONSyntaxError/Kind/duplicateMember(_:)``): every reader of outside bytes, the GIO module's included, refuses
/// it, so none can act on a value another reader of the same bytes did not see.
public struct JSONReader {
    private let bytes: [UInt8]
    public private(set) var offset = 0
    /// Nesting deeper than a document could need is garbage; the limit keeps recursion off the stack's edge.
    private let maximumDepth: Int
    public static let defaultMaximumDepth = 32
    /// Up to this many members an object's names are checked for a repeat by comparing with each earlier one: no
    /// allocation and no hashing, and cheaper than a set up to about 30 members (a 30-member object took 5.0 µs so,
    /// 6.2 µs through a set, 3.5 µs unchecked; a call's envelope 0.89 µs, unchanged). Calls have a handful and a
    /// path or an interface 10 to 25; past the limit, names go through a set.
    static let linearDuplicateCheckLimit = 32

    /// Keeps a repeated member instead of refusing the object: only for salvaging what a damaged file holds, where
    /// the caller judges each element whole (a policy entry with a repeated field is skipped, not every entry after
    /// it). Never for a message two readers must agree on.
    public var keepsRepeatedMembers = false

    public init(_ bytes: [UInt8], maximumDepth: Int = JSONReader.defaultMaximumDepth) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    /// The whole input as one value, with nothing but whitespace after it.
    public static func parse(
        _ bytes: [UInt8], maximumDepth: Int = JSONReader.defaultMaximumDepth
    ) throws(JSONSyntaxError) -> JSONValue {
        var reader = JSONReader(bytes, maximumDepth: maximumDepth)
        let value = try reader.parseValue()
        reader.skipWhitespace()
        guard reader.isAtEnd else { throw reader.error("unexpected text after the end of the document") }
        return value
    }

    public var isAtEnd: Bool { offset >= bytes.count }

    /// The next byte that is not whitespace, without consuming it.
    public mutating func peek() -> UInt8? {
        skipWhitespace()
        return isAtEnd ? nil : bytes[offset]
    }

    /// Consumes `byte` (after whitespace) or fails naming what was expected.
    public mutating func expect(_ byte: UInt8, _ what: String) throws(JSONSyntaxError) {
        guard peek() == byte else { throw error("expected \(what)") }
        offset += 1
    }

    /// Consumes `byte` if it comes next.
    public mutating func consume(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        offset += 1
        return true
    }

    public mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        try parseValue(depth: 0)
    }

    private mutating func parseValue(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth < maximumDepth else { throw error("nested too deeply") }
        guard let next = peek() else { throw error("unexpected end of file") }
        switch next {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character")
        }
    }

    private mutating func parseObject(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        try expect(UInt8(ascii: "{"), "\"{\"")
        var members: [(String, JSONValue)] = []
        if consume(UInt8(ascii: "}")) { return .object(members) }
        var names: Set<String> = []
        repeat {
            guard peek() == UInt8(ascii: "\"") else { throw error("expected a member name") }
            let nameOffset = offset
            let name = try parseString()
            let isRepeated: Bool
            if keepsRepeatedMembers {
                isRepeated = false
            } else if members.count < Self.linearDuplicateCheckLimit {
                isRepeated = members.contains { $0.0 == name }
            } else {
                if names.isEmpty {
                    names.reserveCapacity(4 * members.count)
                    names.formUnion(members.lazy.map(\.0))
                }
                isRepeated = !names.insert(name).inserted
            }
            guard !isRepeated else {
                throw JSONSyntaxError(
                    offset: nameOffset, reason: "a member name repeated in an object", kind: .duplicateMember(name))
            }
            try expect(UInt8(ascii: ":"), "\":\"")
            members.append((name, try parseValue(depth: depth + 1)))
        } while consume(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"), "\",\" or \"}\"")
        return .object(members)
    }

    private mutating func parseArray(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        try expect(UInt8(ascii: "["), "\"[\"")
        var elements: [JSONValue] = []
        if consume(UInt8(ascii: "]")) { return .array(elements) }
        repeat {
            elements.append(try parseValue(depth: depth + 1))
        } while consume(UInt8(ascii: ","))
        try expect(UInt8(ascii: "]"), "\",\" or \"]\"")
        return .array(elements)
    }

    private mutating func parseLiteral(_ word: String, _ value: JSONValue) throws(JSONSyntaxError) -> JSONValue {
        for byte in word.utf8 {
            guard !isAtEnd, bytes[offset] == byte else { throw error("expected \"\(word)\"") }
            offset += 1
        }
        return value
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
        let start = offset
        _ = consumeRaw { $0 == UInt8(ascii: "-") }
        if !consumeRaw({ $0 == UInt8(ascii: "0") }) {
            guard consumeDigits() else { throw error("expected a digit") }
        }
        if consumeRaw({ $0 == UInt8(ascii: ".") }) {
            guard consumeDigits() else { throw error("expected a digit after \".\"") }
        }
        if consumeRaw({ $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            _ = consumeRaw { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") }
            guard consumeDigits() else { throw error("expected a digit in the exponent") }
        }
        return .number(String(decoding: bytes[start..<offset], as: UTF8.self))
    }

    public mutating func parseString() throws(JSONSyntaxError) -> String {
        try expect(UInt8(ascii: "\""), "a string")
        // Most strings hold no escape: read up to the closing quote and validate the run in one go.
        let start = offset
        while offset < bytes.count, bytes[offset] != UInt8(ascii: "\""), bytes[offset] != UInt8(ascii: "\\"),
            bytes[offset] >= 0x20
        {
            offset += 1
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") {
            guard let text = Self.validUTF8(bytes[start..<offset]) else {
                offset = Self.firstInvalidUTF8(in: bytes[start..<offset])
                throw error("invalid UTF-8 in a string")
            }
            offset += 1
            return text
        }
        var utf8 = Array(bytes[start..<offset])
        while true {
            guard !isAtEnd else { throw error("unterminated string") }
            let byte = bytes[offset]
            switch byte {
            case UInt8(ascii: "\""):
                offset += 1
                guard let text = Self.validUTF8(utf8[...]) else {
                    // The bytes are the string's with its escapes undone: the offset is the string's start.
                    offset = start
                    throw error("invalid UTF-8 in a string")
                }
                return text
            case UInt8(ascii: "\\"):
                offset += 1
                try parseEscape(into: &utf8)
            case 0..<0x20:
                throw error("control character in a string")
            default:
                utf8.append(byte)
                offset += 1
            }
        }
    }

    private mutating func parseEscape(into utf8: inout [UInt8]) throws(JSONSyntaxError) {
        guard !isAtEnd else { throw error("unterminated string") }
        let byte = bytes[offset]
        offset += 1
        let replacement: UInt8? =
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): byte
            case UInt8(ascii: "b"): 0x08
            case UInt8(ascii: "f"): 0x0c
            case UInt8(ascii: "n"): 0x0a
            case UInt8(ascii: "r"): 0x0d
            case UInt8(ascii: "t"): 0x09
            default: nil
            }
        if let replacement {
            utf8.append(replacement)
            return
        }
        guard byte == UInt8(ascii: "u") else { throw error("unknown escape") }
        var scalar = try parseHex4()
        if (0xD800..<0xDC00).contains(scalar) {
            // A high surrogate is only meaningful followed by its low half.
            guard consumeRaw({ $0 == UInt8(ascii: "\\") }), consumeRaw({ $0 == UInt8(ascii: "u") }) else {
                throw error("unpaired surrogate")
            }
            let low = try parseHex4()
            guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw error("unpaired surrogate") }
        utf8.append(contentsOf: String(Character(unicode)).utf8)
    }

    /// Where the first byte of `run` that is not valid UTF-8 is.
    /// The bytes as text if they are valid UTF-8, else nil. Not `String(validating:as:)`: generic over the
    /// encoding, it runs unspecialized in the standard library and looks up two types' metadata at every call,
    /// 975 instructions for a key of a few letters (a thousand flows' subscriptions parsed 35,000 strings).
    /// Decoding repairs what is not UTF-8, each bad sequence made U+FFFD, so text whose bytes differ from the
    /// input was not valid (U+FFFD itself, sent as such, comes back unchanged).
    static func validUTF8(_ bytes: ArraySlice<UInt8>) -> String? {
        var text = String(decoding: bytes, as: UTF8.self)
        // Compared as two buffers: the UTF-8 view's iterator against the slice was 530 instructions a string.
        let unchanged = text.withUTF8 { stored in
            bytes.withUnsafeBufferPointer { stored.count == $0.count && stored.elementsEqual($0) }
        }
        return unchanged ? text : nil
    }

    private static func firstInvalidUTF8(in run: ArraySlice<UInt8>) -> Int {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = run.makeIterator()
        var position = run.startIndex
        while case .valid(let scalar) = parser.parseScalar(from: &iterator) { position += scalar.count }
        return position
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard !isAtEnd, let digit = Self.hexValue(bytes[offset]) else { throw error("bad \\u escape") }
            value = value << 4 | UInt32(digit)
            offset += 1
        }
        return value
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private mutating func consumeRaw(_ matches: (UInt8) -> Bool) -> Bool {
        guard !isAtEnd, matches(bytes[offset]) else { return false }
        offset += 1
        return true
    }

    private mutating func consumeDigits() -> Bool {
        let start = offset
        while consumeRaw({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {}
        return offset > start
    }

    public mutating func skipWhitespace() {
        while consumeRaw({ $0 == 0x20 || $0 == 0x0a || $0 == 0x0d || $0 == 0x09 }) {}
    }

    public func error(_ reason: String) -> JSONSyntaxError {
        JSONSyntaxError(offset: min(offset, bytes.count), reason: reason)
    }
}
