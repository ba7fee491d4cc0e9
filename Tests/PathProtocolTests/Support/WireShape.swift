// SPDX-License-Identifier: Apache-2.0
/// What a Decodable type reads off the wire, found by decoding it from a recorder instead of JSON: each key it
/// asks for, whether it asks with `decodeIfPresent` (the field may be absent) and what it reads inside. It is the
/// shape the code really accepts, whatever its properties are called or its `init(from:)` does.
indirect enum WireShape: Equatable, CustomStringConvertible {
    /// Nothing at all: a type that reads no field (a method without parameters).
    case nothing
    /// A string, number or boolean (or a type decoded from one).
    case scalar
    /// A JSON array of this.
    case array(WireShape)
    /// A JSON object with these fields.
    case object([String: Field])

    struct Field: Equatable {
        var isOptional: Bool
        var shape: WireShape
    }

    /// The shape `type` reads.
    static func of<T: Decodable>(_ type: T.Type) throws -> WireShape {
        let recorder = ShapeRecorder(depth: 0)
        _ = try T(from: recorder)
        return recorder.shape
    }

    var description: String {
        switch self {
        case .nothing: return "nothing"
        case .scalar: return "scalar"
        case .array(let element): return "[\(element)]"
        case .object(let fields): return "{" + fields.keys.sorted().joined(separator: ", ") + "}"
        }
    }
}

/// A Decoder that answers every read with a placeholder (empty string, zero, false, one-element arrays) and notes
/// what was read. Nested values get recorders of their own.
private final class ShapeRecorder: Decoder {
    let codingPath: [any CodingKey] = []
    let userInfo: [CodingUserInfoKey: Any] = [:]
    let depth: Int
    var shape = WireShape.nothing

    init(depth: Int) { self.depth = depth }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if case .object = shape {} else { shape = .object([:]) }
        return KeyedDecodingContainer(KeyedRecorder<Key>(recorder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { UnkeyedRecorder(recorder: self) }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        shape = .scalar
        return ScalarRecorder(recorder: self)
    }

    /// Reads a nested value with a recorder of its own; returns the value and the shape it read.
    func nested<T: Decodable>(_ type: T.Type) throws -> (T, WireShape) {
        // A type that contains itself would recurse for ever; nothing on pathmond's wire does.
        guard depth < 32 else { throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "too deep")) }
        let child = ShapeRecorder(depth: depth + 1)
        let value = try T(from: child)
        return (value, child.shape)
    }

    func note(_ key: String, optional: Bool, shape: WireShape) {
        guard case .object(var fields) = self.shape else { return }
        fields[key] = WireShape.Field(isOptional: optional, shape: shape)
        self.shape = .object(fields)
    }
}

private struct KeyedRecorder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let recorder: ShapeRecorder
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let (value, shape) = try recorder.nested(type)
        recorder.note(key.stringValue, optional: false, shape: shape)
        return value
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        let (value, shape) = try recorder.nested(type)
        recorder.note(key.stringValue, optional: true, shape: shape)
        return value
    }

    // The scalar overloads, each as its generic form: the synthesized code calls these for standard types.
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try scalar(Bool.self, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try scalar(String.self, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try scalar(Double.self, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try scalar(Float.self, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try scalar(Int.self, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try scalar(Int8.self, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try scalar(Int16.self, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try scalar(Int32.self, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try scalar(Int64.self, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try scalar(UInt.self, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try scalar(UInt8.self, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try scalar(UInt16.self, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try scalar(UInt32.self, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try scalar(UInt64.self, key) }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try optional(Bool.self, key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try optional(String.self, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try optional(Double.self, key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try optional(Float.self, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try optional(Int.self, key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try optional(Int8.self, key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try optional(Int16.self, key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try optional(Int32.self, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try optional(Int64.self, key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try optional(UInt.self, key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try optional(UInt8.self, key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try optional(UInt16.self, key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try optional(UInt32.self, key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try optional(UInt64.self, key) }

    private func scalar<T: Placeholder>(_ type: T.Type, _ key: Key) throws -> T {
        recorder.note(key.stringValue, optional: false, shape: .scalar)
        return T.placeholder
    }

    private func optional<T: Placeholder>(_ type: T.Type, _ key: Key) throws -> T? {
        recorder.note(key.stringValue, optional: true, shape: .scalar)
        return T.placeholder
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        throw DecodingError.dataCorrupted(.init(codingPath: [key], debugDescription: "nested containers unrecorded"))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw DecodingError.dataCorrupted(.init(codingPath: [key], debugDescription: "nested containers unrecorded"))
    }

    func superDecoder() throws -> any Decoder { recorder }
    func superDecoder(forKey key: Key) throws -> any Decoder { recorder }
}

/// Arrays read as holding one element, so that the element's shape is recorded.
private struct UnkeyedRecorder: UnkeyedDecodingContainer {
    let recorder: ShapeRecorder
    var codingPath: [any CodingKey] { [] }
    var count: Int? { 1 }
    var currentIndex = 0
    var isAtEnd: Bool { currentIndex > 0 }

    mutating func decodeNil() throws -> Bool { false }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        currentIndex += 1
        let (value, shape) = try recorder.nested(type)
        recorder.shape = .array(shape)
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "nested containers unrecorded"))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "nested containers unrecorded"))
    }

    mutating func superDecoder() throws -> any Decoder { recorder }
}

/// A scalar: a placeholder of the type asked for.
private struct ScalarRecorder: SingleValueDecodingContainer {
    let recorder: ShapeRecorder
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let placeholder = (type as? any Placeholder.Type)?.placeholder as? T { return placeholder }
        // A wrapper around another Decodable (a raw-value enum, say): what that one reads is what this one does.
        let (value, shape) = try recorder.nested(type)
        recorder.shape = shape
        return value
    }
}

/// A value of a standard scalar type for the recorder to answer with.
private protocol Placeholder { static var placeholder: Self { get } }
extension Bool: Placeholder { static var placeholder: Bool { false } }
extension String: Placeholder { static var placeholder: String { "" } }
extension Double: Placeholder { static var placeholder: Double { 0 } }
extension Float: Placeholder { static var placeholder: Float { 0 } }
extension Int: Placeholder { static var placeholder: Int { 0 } }
extension Int8: Placeholder { static var placeholder: Int8 { 0 } }
extension Int16: Placeholder { static var placeholder: Int16 { 0 } }
extension Int32: Placeholder { static var placeholder: Int32 { 0 } }
extension Int64: Placeholder { static var placeholder: Int64 { 0 } }
extension UInt: Placeholder { static var placeholder: UInt { 0 } }
extension UInt8: Placeholder { static var placeholder: UInt8 { 0 } }
extension UInt16: Placeholder { static var placeholder: UInt16 { 0 } }
extension UInt32: Placeholder { static var placeholder: UInt32 { 0 } }
extension UInt64: Placeholder { static var placeholder: UInt64 { 0 } }
