// SPDX-License-Identifier: Apache-2.0
/// A document read field by field, as a synthesized `Decodable` reads it through `JSONValueDecoder`, by the same
/// rules: a required member absent, null or of another type is an error; an optional one absent or null is nil;
/// members not asked for are ignored; a number fits its integer type exactly (an integral `2.0` too); `JSONReader`
/// refuses an object that repeats a name. Without the Decoder's generic containers, whose metadata a one-shot client made at
/// run time for every type read: half of `pathctl check` (issue 41). A reader that throws says only where: callers
/// read such a document again through the Decoder, whose error says what is wrong.
public struct JSONShapeError: Error, Sendable, Hashable {
    /// The member or type that did not fit.
    public var what: String

    public init(_ what: String) {
        self.what = what
    }
}

extension JSONValue {
    /// An object's members.
    public func object() throws(JSONShapeError) -> JSONMembers {
        guard case .object(let members) = self else { throw JSONShapeError("an object") }
        return JSONMembers(members: members)
    }

    public func array() throws(JSONShapeError) -> [JSONValue] {
        guard case .array(let elements) = self else { throw JSONShapeError("an array") }
        return elements
    }

    public func string() throws(JSONShapeError) -> String {
        guard case .string(let text) = self else { throw JSONShapeError("a string") }
        return text
    }

    /// An array of strings.
    public func strings() throws(JSONShapeError) -> [String] {
        var texts: [String] = []
        for element in try array() { texts.append(try element.string()) }
        return texts
    }

    public func bool() throws(JSONShapeError) -> Bool {
        guard case .bool(let flag) = self else { throw JSONShapeError("a boolean") }
        return flag
    }

    @inlinable
    public func integer<Number: FixedWidthInteger>(_ type: Number.Type = Number.self) throws(JSONShapeError)
        -> Number
    {
        guard case .number(let text) = self, let number = Self.integer(text, as: type) else {
            throw JSONShapeError("an integer")
        }
        return number
    }

    /// A number's text as `Number`, if it fits exactly (an integral real number too, `2.0` or `2e3`).
    @inlinable
    static func integer<Number: FixedWidthInteger>(_ text: String, as type: Number.Type) -> Number? {
        if let exact = Number(text) { return exact }
        if text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }), let real = Double(text),
            let whole = Number(exactly: real)
        {
            return whole
        }
        return nil
    }
}

/// An object's members, read by name.
public struct JSONMembers: Sendable {
    let members: [(String, JSONValue)]

    /// The first member named `name`; absent or null is an error (`JSONShapeError` names it).
    public func required(_ name: String) throws(JSONShapeError) -> JSONValue {
        guard let value = first(name), value != .null else { throw JSONShapeError(name) }
        return value
    }

    /// The first member named `name`; nil when absent or null.
    public func optional(_ name: String) -> JSONValue? {
        guard let value = first(name), value != .null else { return nil }
        return value
    }

    private func first(_ name: String) -> JSONValue? {
        for (key, value) in members where key == name { return value }
        return nil
    }
}
