// SPDX-License-Identifier: Apache-2.0
/// Encodes an `Encodable` value as JSON without Foundation: object members sorted by name (byte order), numbers as
/// Swift prints them (an integral floating-point value without its `.0`), strings as `JSONWriter` escapes them. A
/// non-finite floating-point value cannot be written in JSON and throws `EncodingError.invalidValue`.
public struct JSONValueEncoder: Sendable {
    public init() {}

    /// The value's JSON text.
    public func encode(_ value: some Encodable) throws -> [UInt8] {
        let root = EncodingSlot()
        try root.encode(value, codingPath: [])
        var bytes: [UInt8] = []
        bytes.reserveCapacity(512)
        root.write(to: &bytes)
        return bytes
    }
}

/// Where one value goes while a value is encoded: a scalar, or the members or elements its containers add. A
/// class, because a container hands it to nested containers and encoders that fill it after they return.
private final class EncodingSlot {
    var scalar: JSONValue?
    /// In the order encoded; `sortedMembers` orders them (a type encodes each key once, so no dictionary is
    /// kept for the rare one that does not: the last of a repeated key wins there, as with JSONEncoder).
    var members: [(String, EncodingSlot)]?
    var elements: [EncodingSlot]?

    /// Appends the value's text, as `JSONWriter` writes a `JSONValue` (without building one); a value that
    /// encoded nothing is an empty object, as with JSONEncoder.
    func write(to bytes: inout [UInt8]) {
        if let scalar { return JSONWriter.append(scalar, to: &bytes) }
        if let elements { return JSONWriter.appendArray(elements, to: &bytes) { $0.write(to: &$1) } }
        JSONWriter.appendObject(sortedMembers, to: &bytes) { $0.write(to: &$1) }
    }

    /// The members by name in byte order (JSONEncoder's `.sortedKeys`), a repeated name's last value only.
    private var sortedMembers: [(String, EncodingSlot)] {
        guard let members else { return [] }
        let ordered = members.enumerated().sorted {
            $0.element.0 == $1.element.0
                ? $0.offset < $1.offset : $0.element.0.utf8.lexicographicallyPrecedes($1.element.0.utf8)
        }.map(\.element)
        var unique: [(String, EncodingSlot)] = []
        unique.reserveCapacity(ordered.count)
        for member in ordered {
            if unique.last?.0 == member.0 { unique[unique.count - 1] = member } else { unique.append(member) }
        }
        return unique
    }

    /// `codingPath`: made only where a nested encoder or an error needs it, not for every leaf.
    func encode<Value: Encodable>(_ value: Value, codingPath: @autoclosure () -> [any CodingKey]) throws {
        // Every leaf here: the containers' generic encode also stands for their Int32, UInt8, … overloads, which
        // the standard library's integers call from their encode(to:).
        switch value {
        case let text as String: scalar = .string(text)
        case let flag as Bool: scalar = .bool(flag)
        case let number as Int: scalar = .number(String(number))
        case let real as Double: scalar = try Self.number(real, codingPath: codingPath())
        case let real as Float: scalar = try Self.number(real, codingPath: codingPath())
        default:
            if let number = Self.integerText(value) {
                scalar = .number(number)
            } else {
                try value.encode(to: SlotEncoder(slot: self, codingPath: codingPath()))
            }
        }
    }

    /// The text of the standard library's other integers, told by their type. A cast to `any FixedWidthInteger`
    /// made the runtime look for the value's conformance among every conformance record of the binary, once per
    /// type encoded: 250 K instructions of `pathctl check`'s 1.8 M. Each type written out, not through a generic
    /// helper: that one looked up each integer type's conformance at run time, and its caches touched ten more
    /// pages of memory in a process that lives for a millisecond.
    private static func integerText<Value>(_ value: Value) -> String? {
        switch ObjectIdentifier(Value.self) {
        case ObjectIdentifier(UInt8.self): String(value as! UInt8)
        case ObjectIdentifier(UInt16.self): String(value as! UInt16)
        case ObjectIdentifier(UInt32.self): String(value as! UInt32)
        case ObjectIdentifier(UInt64.self): String(value as! UInt64)
        case ObjectIdentifier(UInt.self): String(value as! UInt)
        case ObjectIdentifier(Int8.self): String(value as! Int8)
        case ObjectIdentifier(Int16.self): String(value as! Int16)
        case ObjectIdentifier(Int32.self): String(value as! Int32)
        case ObjectIdentifier(Int64.self): String(value as! Int64)
        default: nil
        }
    }

    /// The object this slot becomes (a second keyed container on one encoder adds to the same object).
    func makeObject() {
        scalar = nil
        elements = nil
        if members == nil { members = [] }
    }

    func makeArray() {
        scalar = nil
        members = nil
        if elements == nil { elements = [] }
    }

    func addMember(_ key: any CodingKey) -> EncodingSlot {
        let slot = EncodingSlot()
        members!.append((key.stringValue, slot))  // `!`: the keyed container made the object.
        return slot
    }

    func addElement() -> EncodingSlot {
        let slot = EncodingSlot()
        elements!.append(slot)  // `!`: the unkeyed container made the array.
        return slot
    }

    static func number<Number: BinaryFloatingPoint & LosslessStringConvertible>(
        _ value: Number, codingPath: [any CodingKey]
    ) throws -> JSONValue {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, EncodingError.Context(codingPath: codingPath, debugDescription: "\(value) is not valid JSON"))
        }
        let text = value.description
        return .number(text.hasSuffix(".0") ? String(text.dropLast(2)) : text)
    }
}

private struct SlotEncoder: Encoder {
    let slot: EncodingSlot
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        slot.makeObject()
        return KeyedEncodingContainer(KeyedSlotContainer<Key>(slot: slot, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        slot.makeArray()
        return UnkeyedSlotContainer(slot: slot, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleSlotContainer(slot: slot, codingPath: codingPath)
    }
}

private struct KeyedSlotContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let slot: EncodingSlot
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) { slot.addMember(key).scalar = .null }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        slot.addMember(key).scalar = try EncodingSlot.number(value, codingPath: codingPath + [key])
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        slot.addMember(key).scalar = try EncodingSlot.number(value, codingPath: codingPath + [key])
    }
    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        try slot.addMember(key).encode(value, codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let member = slot.addMember(key)
        member.makeObject()
        return KeyedEncodingContainer(KeyedSlotContainer<NestedKey>(slot: member, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let member = slot.addMember(key)
        member.makeArray()
        return UnkeyedSlotContainer(slot: member, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        SlotEncoder(slot: slot.addMember(JSONKey(stringValue: "super")), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        SlotEncoder(slot: slot.addMember(key), codingPath: codingPath + [key])
    }
}

private struct UnkeyedSlotContainer: UnkeyedEncodingContainer {
    let slot: EncodingSlot
    let codingPath: [any CodingKey]
    var count: Int { slot.elements?.count ?? 0 }

    private var nextPath: [any CodingKey] { codingPath + [JSONKey(intValue: count)] }

    mutating func encodeNil() { slot.addElement().scalar = .null }
    mutating func encode(_ value: Double) throws {
        let path = nextPath
        slot.addElement().scalar = try EncodingSlot.number(value, codingPath: path)
    }
    mutating func encode(_ value: Float) throws {
        let path = nextPath
        slot.addElement().scalar = try EncodingSlot.number(value, codingPath: path)
    }
    mutating func encode(_ value: some Encodable) throws {
        let (path, index) = (codingPath, count)
        try slot.addElement().encode(value, codingPath: path + [JSONKey(intValue: index)])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let path = nextPath
        let element = slot.addElement()
        element.makeObject()
        return KeyedEncodingContainer(KeyedSlotContainer<NestedKey>(slot: element, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        let element = slot.addElement()
        element.makeArray()
        return UnkeyedSlotContainer(slot: element, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let path = nextPath
        return SlotEncoder(slot: slot.addElement(), codingPath: path)
    }
}

private struct SingleSlotContainer: SingleValueEncodingContainer {
    let slot: EncodingSlot
    let codingPath: [any CodingKey]

    mutating func encodeNil() { slot.scalar = .null }
    mutating func encode(_ value: Double) throws {
        slot.scalar = try EncodingSlot.number(value, codingPath: codingPath)
    }
    mutating func encode(_ value: Float) throws { slot.scalar = try EncodingSlot.number(value, codingPath: codingPath) }
    mutating func encode(_ value: some Encodable) throws { try slot.encode(value, codingPath: codingPath) }
}

/// A key made up by the coder: an array's index, `super`.
struct JSONKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
}
