// SPDX-License-Identifier: Apache-2.0
/// Decodes a `Decodable` value from JSON without Foundation, reading it with `JSONReader` (strict RFC 8259,
/// nesting bounded). Errors are the standard library's `DecodingError`, with JSONDecoder's coding paths: a field
/// of the wrong type names its own path, a missing one its parent's. Bytes with an object that repeats a member are
/// not read at all (the reader refuses them), where JSONDecoder lets the first count. An integer is read from the
/// number's text, so a UInt64 loses nothing, and a number that does not fit the type is an error, never rounded or
/// wrapped.
public struct JSONValueDecoder: Sendable {
    public var maximumDepth: Int

    public init(maximumDepth: Int = JSONReader.defaultMaximumDepth) {
        self.maximumDepth = maximumDepth
    }

    public func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) throws -> Value {
        let document: JSONValue
        do {
            document = try JSONReader.parse(bytes, maximumDepth: maximumDepth)
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: [], debugDescription: "not valid JSON: \(error.reason) at byte \(error.offset)"))
        }
        return try decode(type, from: document)
    }

    public func decode<Value: Decodable>(_ type: Value.Type, from document: JSONValue) throws -> Value {
        try ValueDecoder(value: document, codingPath: []).decode(type)
    }
}

private struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw mismatch([String: JSONValue].self) }
        return KeyedDecodingContainer(KeyedValueContainer<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw mismatch([JSONValue].self) }
        return UnkeyedValueContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        // The common leaves directly, as JSONDecoder does; everything else through its own init(from:).
        if type == String.self { return try string() as! Value }
        if type == Bool.self { return try bool() as! Value }
        if type == Int.self { return try integer(Int.self) as! Value }
        return try Value(from: self)
    }

    /// A value of another type, null included (as JSONDecoder says it).
    func mismatch(_ type: Any.Type) -> DecodingError {
        .typeMismatch(
            type,
            DecodingError.Context(
                codingPath: codingPath, debugDescription: "Expected \(type) but found \(value.typeName) instead."))
    }

    func string() throws -> String {
        guard case .string(let text) = value else { throw mismatch(String.self) }
        return text
    }

    func bool() throws -> Bool {
        guard case .bool(let flag) = value else { throw mismatch(Bool.self) }
        return flag
    }

    /// The number as `Number`: its text read exactly, or, written with a fraction or an exponent (`1.0`, `2e3`),
    /// only if it is a whole number within the type's range.
    func integer<Number: FixedWidthInteger>(_ type: Number.Type) throws -> Number {
        guard case .number(let text) = value else { throw mismatch(type) }
        if let number = JSONValue.integer(text, as: type) { return number }
        throw DecodingError.dataCorrupted(
            DecodingError.Context(codingPath: codingPath, debugDescription: "\(text) does not fit in \(type)"))
    }

    func real<Number: BinaryFloatingPoint & LosslessStringConvertible>(_ type: Number.Type) throws -> Number {
        guard case .number(let text) = value else { throw mismatch(type) }
        guard let real = Number(text), real.isFinite else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: codingPath, debugDescription: "\(text) does not fit in \(type)"))
        }
        return real
    }
}

extension ValueDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try bool() }
    func decode(_ type: String.Type) throws -> String { try string() }
    func decode(_ type: Double.Type) throws -> Double { try real(type) }
    func decode(_ type: Float.Type) throws -> Float { try real(type) }
    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }
}

private struct KeyedValueContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let codingPath: [any CodingKey]
    /// In document order, repeats included: a Varlink message has a handful of members, which a scan finds
    /// sooner than a dictionary built for each object would.
    private let members: [(String, JSONValue)]

    init(members: [(String, JSONValue)], codingPath: [any CodingKey]) {
        self.members = members
        self.codingPath = codingPath
    }

    /// Each name once, in document order.
    var allKeys: [Key] {
        var seen = Set<String>()
        return members.compactMap { seen.insert($0.0).inserted ? Key(stringValue: $0.0) : nil }
    }

    /// The first member of that name.
    private func value(_ name: String) -> JSONValue? {
        members.first { $0.0 == name }?.1
    }

    func contains(_ key: Key) -> Bool { value(key.stringValue) != nil }

    private func member(_ key: Key) throws -> ValueDecoder {
        guard let value = value(key.stringValue) else {
            throw DecodingError.keyNotFound(
                key,
                DecodingError.Context(
                    codingPath: codingPath, debugDescription: "No value for the key \"\(key.stringValue)\"."))
        }
        return ValueDecoder(value: value, codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key).decodeNil() }
    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try member(key).decode(type)
    }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try member(key).bool() }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try member(key).string() }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try member(key).real(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try member(key).real(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try member(key).integer(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try member(key).integer(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try member(key).integer(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try member(key).integer(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try member(key).integer(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try member(key).integer(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try member(key).integer(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try member(key).integer(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try member(key).integer(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try member(key).integer(type) }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try member(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try member(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        ValueDecoder(value: value("super") ?? .null, codingPath: codingPath + [JSONKey(stringValue: "super")])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: value(key.stringValue) ?? .null, codingPath: codingPath + [key])
    }
}

private struct UnkeyedValueContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// The next element, consumed only once it decoded (JSONDecoder's rule: a failed element can be retried as
    /// another type).
    private mutating func next<Value>(_ type: Any.Type, _ read: (ValueDecoder) throws -> Value) throws -> Value {
        let path = codingPath + [JSONKey(intValue: currentIndex)]
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type, DecodingError.Context(codingPath: path, debugDescription: "Unkeyed container is at its end."))
        }
        let value = try read(ValueDecoder(value: elements[currentIndex], codingPath: path))
        currentIndex += 1
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try next(type) { try $0.decode(type) }
    }
    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) { try $0.bool() } }
    mutating func decode(_ type: String.Type) throws -> String { try next(type) { try $0.string() } }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type) { try $0.real(type) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type) { try $0.real(type) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type) { try $0.integer(type) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type) { try $0.integer(type) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type) { try $0.integer(type) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type) { try $0.integer(type) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type) { try $0.integer(type) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type) { try $0.integer(type) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type) { try $0.integer(type) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type) { try $0.integer(type) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type) { try $0.integer(type) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type) { try $0.integer(type) } }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try next(type) { try $0.container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next([JSONValue].self) { try $0.unkeyedContainer() }
    }

    mutating func superDecoder() throws -> any Decoder {
        try next(JSONValue.self) { $0 }
    }
}
