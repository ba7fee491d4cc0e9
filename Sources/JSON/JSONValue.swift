// SPDX-License-Identifier: Apache-2.0
/// A parsed JSON value. Objects keep their members in file order. `JSONReader` refuses an object that repeats a
/// name, but one built otherwise (the policy file's salvage of a damaged file) may repeat it, so `members(named:)`
/// gives every one and a decoder can tell a repeated field from a single one instead of letting one silently win.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number's text as written: the decoder only needs small integers and must not round anything.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    /// The members named `name`, in file order.
    public func members(named name: String) -> [JSONValue] {
        guard case .object(let members) = self else { return [] }
        return members.filter { $0.0 == name }.map(\.1)
    }

    /// A short name of the value's type, for error messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

extension JSONValue {
    public static func == (left: JSONValue, right: JSONValue) -> Bool {
        switch (left, right) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }
}
