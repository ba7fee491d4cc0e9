// SPDX-License-Identifier: Apache-2.0
/// The parts of a Varlink interface definition (varlink.org's grammar) that shape the wire: each type's and each
/// method's fields, with their types. Comments and the interface's name are read past. Hand-written because no
/// Swift library reads the format; `VarlinkDefinitionTests` tests it directly.
struct VarlinkDefinition {
    /// A field's type as written.
    indirect enum FieldType: Equatable {
        /// bool, int, float, string or object (any JSON object).
        case primitive(String)
        /// A type the definition declares.
        case named(String)
        /// `?T`: the field may be absent (or null).
        case optional(FieldType)
        /// `[]T`.
        case array(FieldType)
        /// `[string]T`: a map with string keys.
        case map(FieldType)
        /// `(a, b, c)`: one of these strings.
        case enumeration([String])
        /// `(a: T, b: U)`: an object written in place.
        case object([Field])
    }

    struct Field: Equatable {
        var name: String
        var type: FieldType
    }

    struct Method: Equatable {
        var input: [Field]
        var output: [Field]
    }

    /// What went wrong reading a definition, with the token where it did.
    struct SyntaxError: Error, Equatable, CustomStringConvertible {
        var expected: String
        var found: String
        var description: String { "expected \(expected), found \(found.isEmpty ? "the end" : "'\(found)'")" }
    }

    private(set) var types: [String: FieldType] = [:]
    private(set) var methods: [String: Method] = [:]
    private(set) var errors: [String: [Field]] = [:]

    init(_ text: String) throws(SyntaxError) {
        var tokens = Tokens(text)
        while let keyword = tokens.next() {
            switch keyword {
            case "interface":
                _ = try tokens.name()
            case "type":
                let name = try tokens.name()
                types[name] = try tokens.parenthesised()
            case "method":
                let name = try tokens.name()
                guard case .object(let input) = try tokens.parenthesised(emptyIsObject: true) else {
                    throw SyntaxError(expected: "the method's parameters", found: name)
                }
                try tokens.expect("->")
                guard case .object(let output) = try tokens.parenthesised(emptyIsObject: true) else {
                    throw SyntaxError(expected: "the method's reply", found: name)
                }
                methods[name] = Method(input: input, output: output)
            case "error":
                let name = try tokens.name()
                guard case .object(let fields) = try tokens.parenthesised(emptyIsObject: true) else {
                    throw SyntaxError(expected: "the error's fields", found: name)
                }
                errors[name] = fields
            default:
                throw SyntaxError(expected: "interface, type, method or error", found: keyword)
            }
        }
    }

    /// The definition's words and marks, comments left out.
    private struct Tokens {
        private var items: [String] = []
        private var position = 0

        init(_ text: String) {
            var word = ""
            var inComment = false
            var previous: Character = " "
            func flush() {
                if !word.isEmpty { items.append(word) }
                word = ""
            }
            for character in text {
                defer { previous = character }
                if inComment {
                    if character == "\n" { inComment = false }
                    continue
                }
                switch character {
                case "#":
                    flush()
                    inComment = true
                case "(", ")", ",", ":", "?", "[", "]":
                    flush()
                    items.append(String(character))
                case "-":
                    flush()
                    word = "-"
                case ">" where previous == "-":
                    items.append("->")
                    word = ""
                case _ where character.isWhitespace:
                    flush()
                default:
                    word.append(character)
                }
            }
            flush()
        }

        var peek: String? { position < items.count ? items[position] : nil }

        mutating func next() -> String? {
            defer { position += 1 }
            return peek
        }

        mutating func expect(_ token: String) throws(SyntaxError) {
            let found = next()
            guard found == token else { throw SyntaxError(expected: "'\(token)'", found: found ?? "") }
        }

        mutating func name() throws(SyntaxError) -> String {
            let found = next()
            guard let found, found.first?.isLetter == true else {
                throw SyntaxError(expected: "a name", found: found ?? "")
            }
            return found
        }

        /// `( ... )`: an enumeration (names alone) or an object (`name: type` pairs); `()` is an empty object
        /// where a method's or error's fields are read, else an empty enumeration.
        mutating func parenthesised(emptyIsObject: Bool = false) throws(SyntaxError) -> FieldType {
            try expect("(")
            if peek == ")" {
                position += 1
                return emptyIsObject ? .object([]) : .enumeration([])
            }
            var fields: [Field] = []
            var cases: [String] = []
            while true {
                let name = try name()
                if peek == ":" {
                    position += 1
                    fields.append(Field(name: name, type: try fieldType()))
                } else {
                    cases.append(name)
                }
                guard let separator = next() else { throw SyntaxError(expected: "',' or ')'", found: "") }
                if separator == ")" { break }
                guard separator == "," else { throw SyntaxError(expected: "',' or ')'", found: separator) }
            }
            guard fields.isEmpty || cases.isEmpty else {
                throw SyntaxError(expected: "only fields or only names", found: cases.first ?? "")
            }
            return cases.isEmpty ? .object(fields) : .enumeration(cases)
        }

        mutating func fieldType() throws(SyntaxError) -> FieldType {
            switch peek {
            case "?":
                position += 1
                return .optional(try fieldType())
            case "[":
                position += 1
                if peek == "]" {
                    position += 1
                    return .array(try fieldType())
                }
                try expect("string")
                try expect("]")
                return .map(try fieldType())
            case "(":
                return try parenthesised()
            default:
                let word = try name()
                return ["bool", "int", "float", "string", "object"].contains(word) ? .primitive(word) : .named(word)
            }
        }
    }
}
