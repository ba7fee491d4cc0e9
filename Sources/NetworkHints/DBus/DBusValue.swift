/// A D-Bus type, parsed from a signature (D-Bus Specification, "Type System").
indirect enum DBusType: Hashable, Sendable, CustomStringConvertible {
    case byte, boolean, int16, uint16, int32, uint32, int64, uint64, double
    case string, objectPath, signature, unixFD, variant
    case array(DBusType)
    case dictionary(key: DBusType, value: DBusType)
    case structure([DBusType])

    /// The boundary a value of this type starts on, relative to the start of the message.
    var alignment: Int {
        switch self {
        case .byte, .signature, .variant: return 1
        case .int16, .uint16: return 2
        case .boolean, .int32, .uint32, .unixFD, .string, .objectPath, .array, .dictionary: return 4
        case .int64, .uint64, .double, .structure: return 8
        }
    }

    /// The signature text of this one type.
    var description: String {
        switch self {
        case .byte: return "y"
        case .boolean: return "b"
        case .int16: return "n"
        case .uint16: return "q"
        case .int32: return "i"
        case .uint32: return "u"
        case .int64: return "x"
        case .uint64: return "t"
        case .double: return "d"
        case .string: return "s"
        case .objectPath: return "o"
        case .signature: return "g"
        case .unixFD: return "h"
        case .variant: return "v"
        case .array(let element): return "a" + element.description
        case .dictionary(let key, let value): return "a{" + key.description + value.description + "}"
        case .structure(let fields): return "(" + fields.map(\.description).joined() + ")"
        }
    }

    /// The complete types of a signature, in order. Enforces the specification's limits: at most 255 bytes, at
    /// most 32 nested arrays and 32 nested structures, dictionary keys basic, no empty structure.
    static func parse(signature: String) throws(DBusError) -> [DBusType] {
        let codes = Array(signature.utf8)
        guard codes.count <= 255 else { throw .invalidSignature(signature) }
        var position = 0
        var types: [DBusType] = []
        while position < codes.count {
            types.append(try parseOne(codes, &position, arrays: 0, structures: 0, signature: signature))
        }
        return types
    }

    private static func parseOne(
        _ codes: [UInt8], _ position: inout Int, arrays: Int, structures: Int, signature: String
    ) throws(DBusError) -> DBusType {
        guard position < codes.count, arrays <= 32, structures <= 32 else { throw .invalidSignature(signature) }
        let code = codes[position]
        position += 1
        if let basic = basicTypes[code] { return basic }
        switch code {
        case UInt8(ascii: "v"): return .variant
        case UInt8(ascii: "a"):
            if position < codes.count, codes[position] == UInt8(ascii: "{") {
                position += 1
                let key = try parseOne(
                    codes, &position, arrays: arrays + 1, structures: structures, signature: signature)
                guard basicTypes.values.contains(key) else { throw .invalidSignature(signature) }
                let value = try parseOne(
                    codes, &position, arrays: arrays + 1, structures: structures, signature: signature)
                guard position < codes.count, codes[position] == UInt8(ascii: "}") else {
                    throw .invalidSignature(signature)
                }
                position += 1
                return .dictionary(key: key, value: value)
            }
            return .array(
                try parseOne(codes, &position, arrays: arrays + 1, structures: structures, signature: signature))
        case UInt8(ascii: "("):
            var fields: [DBusType] = []
            while position < codes.count, codes[position] != UInt8(ascii: ")") {
                fields.append(
                    try parseOne(codes, &position, arrays: arrays, structures: structures + 1, signature: signature))
            }
            guard position < codes.count, !fields.isEmpty else { throw .invalidSignature(signature) }
            position += 1
            return .structure(fields)
        default:
            throw .invalidSignature(signature)
        }
    }

    private static let basicTypes: [UInt8: DBusType] = [
        UInt8(ascii: "y"): .byte, UInt8(ascii: "b"): .boolean, UInt8(ascii: "n"): .int16, UInt8(ascii: "q"): .uint16,
        UInt8(ascii: "i"): .int32, UInt8(ascii: "u"): .uint32, UInt8(ascii: "x"): .int64, UInt8(ascii: "t"): .uint64,
        UInt8(ascii: "d"): .double, UInt8(ascii: "s"): .string, UInt8(ascii: "o"): .objectPath,
        UInt8(ascii: "g"): .signature, UInt8(ascii: "h"): .unixFD,
    ]
}

/// A D-Bus value with enough type information to be written back.
indirect enum DBusValue: Hashable, Sendable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    case unixFD(UInt32)
    case variant(DBusType, DBusValue)
    case array(DBusType, [DBusValue])
    case dictionary(key: DBusType, value: DBusType, [DBusEntry])
    case structure([DBusValue])

    /// The text of a string, object path or signature.
    var text: String? {
        switch self {
        case .string(let text), .objectPath(let text), .signature(let text): return text
        default: return nil
        }
    }

    /// The value inside a variant (variants nest: unwraps all of them).
    var unwrapped: DBusValue {
        if case .variant(_, let inner) = self { return inner.unwrapped }
        return self
    }

    /// The value of an unsigned 32-bit integer.
    var uint32Value: UInt32? {
        if case .uint32(let value) = self { return value }
        return nil
    }

    /// The entries of a dictionary by string (or object path) key; later duplicates are ignored.
    var dictionaryByText: [String: DBusValue]? {
        guard case .dictionary(_, _, let entries) = self else { return nil }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            if let key = entry.key.text, result[key] == nil { result[key] = entry.value }
        }
        return result
    }
}

/// One key-value pair of a D-Bus dictionary, in wire order.
struct DBusEntry: Hashable, Sendable {
    var key: DBusValue
    var value: DBusValue
}

/// What can go wrong talking D-Bus: malformed bytes (each case names where), or the conversation itself.
enum DBusError: Error, Hashable, Sendable {
    /// The data ends before the value at `offset` does.
    case truncated(offset: Int)
    /// A signature that is not a sequence of complete types within the specification's limits.
    case invalidSignature(String)
    /// A byte that must be zero (alignment padding, a string's terminator) is not, at `offset`.
    case nonZeroPadding(offset: Int)
    /// A string or object path at `offset` that is not valid UTF-8, contains NUL, or is not a valid path.
    case invalidString(offset: Int)
    /// A boolean at `offset` that is neither 0 nor 1.
    case invalidBoolean(offset: Int)
    /// An array or message longer than the specification allows (64 MiB and 128 MiB).
    case tooLong(offset: Int)
    /// Values nested deeper than the specification allows.
    case nestingTooDeep
    /// A message header that breaks the rules: endianness, version, a missing required field.
    case invalidHeader(String)
    /// A reply whose body does not have the shape the call promises.
    case unexpectedReply(String)
    /// The peer answered with a D-Bus error.
    case errorReply(name: String, message: String?)
    /// A system call failed (socket, connect, send, receive: errno).
    case system(call: String, errno: Int32)
    /// The bus refused our credentials or spoke something other than the authentication protocol.
    case authenticationFailed(String)
    /// The peer closed the connection or did not answer in time.
    case connectionLost
}
