/// Reads D-Bus marshalled values from a whole message's bytes. Offsets are absolute, because alignment is
/// relative to the start of the message; every read is bounds-checked and every rule of the specification that
/// keeps a parser safe (zero padding, length limits, nesting depth, valid UTF-8) is enforced with a typed error.
struct DBusDecoder {
    /// The specification's maximum array length: 64 MiB.
    static let maximumArrayLength = 64 << 20
    /// The specification's maximum depth of containers, arrays and structures together, variants included.
    static let maximumDepth = 64

    let bytes: [UInt8]
    let isLittleEndian: Bool
    private(set) var offset: Int
    private let limit: Int

    /// A decoder over `bytes[offset..<limit]` (the limit defaults to the end).
    init(bytes: [UInt8], isLittleEndian: Bool, offset: Int = 0, limit: Int? = nil) {
        self.bytes = bytes
        self.isLittleEndian = isLittleEndian
        self.offset = offset
        self.limit = limit ?? bytes.count
    }

    /// Whether every byte up to the limit has been read.
    var isAtEnd: Bool { offset >= limit }

    /// Skips padding to `alignment`; the padding must be zero.
    mutating func align(_ alignment: Int) throws(DBusError) {
        let padded = (offset + alignment - 1) / alignment * alignment
        guard padded <= limit else { throw .truncated(offset: offset) }
        for index in offset..<padded where bytes[index] != 0 { throw .nonZeroPadding(offset: index) }
        offset = padded
    }

    /// One value of `type`.
    mutating func decode(_ type: DBusType, depth: Int = 0) throws(DBusError) -> DBusValue {
        guard depth <= Self.maximumDepth else { throw .nestingTooDeep }
        try align(type.alignment)
        switch type {
        case .byte: return .byte(try readByte())
        case .boolean:
            let start = offset
            switch try readUInt32() {
            case 0: return .boolean(false)
            case 1: return .boolean(true)
            default: throw .invalidBoolean(offset: start)
            }
        case .int16: return .int16(Int16(bitPattern: UInt16(truncatingIfNeeded: try readInteger(2))))
        case .uint16: return .uint16(UInt16(truncatingIfNeeded: try readInteger(2)))
        case .int32: return .int32(Int32(bitPattern: try readUInt32()))
        case .uint32: return .uint32(try readUInt32())
        case .int64: return .int64(Int64(bitPattern: try readInteger(8)))
        case .uint64: return .uint64(try readInteger(8))
        case .double: return .double(Double(bitPattern: try readInteger(8)))
        case .unixFD: return .unixFD(try readUInt32())
        case .string: return .string(try readText(lengthBytes: 4))
        case .objectPath:
            let start = offset
            let path = try readText(lengthBytes: 4)
            guard Self.isValidObjectPath(path) else { throw .invalidString(offset: start) }
            return .objectPath(path)
        case .signature:
            let text = try readText(lengthBytes: 1)
            _ = try DBusType.parse(signature: text)
            return .signature(text)
        case .variant:
            let text = try readText(lengthBytes: 1)
            let types = try DBusType.parse(signature: text)
            guard types.count == 1 else { throw .invalidSignature(text) }
            return .variant(types[0], try decode(types[0], depth: depth + 1))
        case .array(let element):
            return .array(element, try decodeElements(element, depth: depth))
        case .dictionary(let key, let value):
            let entries = try decodeElements(.structure([key, value]), depth: depth).map { entry in
                // decodeElements produced structures of exactly the two fields asked for.
                guard case .structure(let fields) = entry else { preconditionFailure("entry is a structure") }
                return DBusEntry(key: fields[0], value: fields[1])
            }
            return .dictionary(key: key, value: value, entries)
        case .structure(let fields):
            var values: [DBusValue] = []
            for field in fields { values.append(try decode(field, depth: depth + 1)) }
            return .structure(values)
        }
    }

    /// An array's elements: a 32-bit byte length, padding to the element's alignment (not counted in the
    /// length), then elements that must end exactly at the length.
    private mutating func decodeElements(_ element: DBusType, depth: Int) throws(DBusError) -> [DBusValue] {
        let lengthOffset = offset
        let length = Int(try readUInt32())
        guard length <= Self.maximumArrayLength else { throw .tooLong(offset: lengthOffset) }
        try align(element.alignment)
        let end = offset + length
        guard end <= limit else { throw .truncated(offset: lengthOffset) }
        var values: [DBusValue] = []
        while offset < end {
            values.append(try decode(element, depth: depth + 1))
        }
        guard offset == end else { throw .truncated(offset: lengthOffset) }
        return values
    }

    mutating func readByte() throws(DBusError) -> UInt8 {
        guard offset < limit else { throw .truncated(offset: offset) }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func readUInt32() throws(DBusError) -> UInt32 {
        UInt32(truncatingIfNeeded: try readInteger(4))
    }

    private mutating func readInteger(_ count: Int) throws(DBusError) -> UInt64 {
        let raw = try take(count)
        var value: UInt64 = 0
        for index in 0..<count {
            let byte = UInt64(raw[raw.startIndex + (isLittleEndian ? count - 1 - index : index)])
            value = value << 8 | byte
        }
        return value
    }

    private mutating func take(_ count: Int) throws(DBusError) -> ArraySlice<UInt8> {
        guard count <= limit - offset else { throw .truncated(offset: offset) }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    /// A string (32-bit length) or signature (8-bit length): UTF-8 without NUL, then a NUL terminator.
    private mutating func readText(lengthBytes: Int) throws(DBusError) -> String {
        let start = offset
        let length = lengthBytes == 1 ? Int(try readByte()) : Int(try readUInt32())
        guard length <= Self.maximumArrayLength * 2 else { throw .tooLong(offset: start) }
        let content = try take(length)
        guard try readByte() == 0 else { throw .nonZeroPadding(offset: offset - 1) }
        guard !content.contains(0), let text = String(validating: content, as: UTF8.self) else {
            throw .invalidString(offset: start)
        }
        return text
    }

    /// "/" or "/" followed by non-empty elements of [A-Za-z0-9_] separated by single slashes.
    static func isValidObjectPath(_ path: String) -> Bool {
        guard path.hasPrefix("/") else { return false }
        if path == "/" { return true }
        let elements = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        return elements.allSatisfy { element in
            !element.isEmpty && element.utf8.allSatisfy { $0 == UInt8(ascii: "_") || ($0 < 0x80 && isalnumASCII($0)) }
        }
    }

    private static func isalnumASCII(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
    }
}
