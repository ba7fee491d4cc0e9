// SPDX-License-Identifier: Apache-2.0
/// One value of a D-Bus message, read by sd-bus and copied into Swift. Dictionaries keep their entries in
/// message order; look-ups go through `dictionaryByText`.
public indirect enum BusValue: Hashable, Sendable {
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
    /// A file descriptor's place: the descriptor itself belongs to the message and is never kept.
    case unixFD
    case variant(BusValue)
    case array([BusValue])
    case dictionary([BusDictionaryEntry])
    case structure([BusValue])

    /// The text of a string, object path or signature.
    public var text: String? {
        switch self {
        case .string(let text), .objectPath(let text), .signature(let text): return text
        default: return nil
        }
    }

    /// The value of a `u`.
    public var uint32Value: UInt32? {
        if case .uint32(let value) = self { return value }
        return nil
    }

    /// The value inside any number of variants.
    public var unwrapped: BusValue {
        var value = self
        while case .variant(let inner) = value { value = inner }
        return value
    }

    /// A dictionary keyed by strings or object paths (`a{sv}`, `a{oa{sa{sv}}}`), with variants left as they are.
    /// A repeated key keeps its first value.
    public var dictionaryByText: [String: BusValue]? {
        guard case .dictionary(let entries) = unwrapped else { return nil }
        var result: [String: BusValue] = [:]
        for entry in entries {
            guard let key = entry.key.text else { return nil }
            if result[key] == nil { result[key] = entry.value }
        }
        return result
    }

    /// The strings of an `as` or `ao`.
    public var texts: [String]? {
        guard case .array(let elements) = unwrapped else { return nil }
        let texts = elements.compactMap(\.text)
        return texts.count == elements.count ? texts : nil
    }
}

/// One entry of a D-Bus dictionary.
public struct BusDictionaryEntry: Hashable, Sendable {
    public var key: BusValue
    public var value: BusValue

    public init(key: BusValue, value: BusValue) {
        self.key = key
        self.value = value
    }
}
