// SPDX-License-Identifier: Apache-2.0
import Foundation
import JSON
import Testing

/// The daemon's JSON coders held against Foundation's, which the daemon used until issue 25 took Foundation out of
/// it: the same bytes out, the same values in, the same coding paths in errors.
@Suite struct JSONCodingTests {
    struct Leaf: Codable, Equatable {
        var name: String
        var count: Int
        var big: UInt64
        var small: Int64
        var flag: Bool
        var ratio: Double?
        var maybe: String?
        var bytes: [UInt8]
        /// Every other integer of the standard library, each a leaf of its own to the encoder.
        var integers = Integers()
    }

    struct Integers: Codable, Equatable {
        var tiny = Int8.min
        var short = Int16.min
        var word = Int32.min
        var unsignedShort = UInt16.max
        var unsignedWord = UInt32.max
        var unsigned = UInt.max
    }

    struct Tree: Codable, Equatable {
        enum Kind: String, Codable { case wifi, cellular }
        var kind: Kind
        var leaves: [Leaf]
        var byName: [String: Int]
        var nested: [[Int]]
        var optionalLeaf: Leaf?
        var zebra: Bool
        var aardvark: Bool
    }

    static let awkwardStrings = [
        "", "plain", "a/b", "quote \" and back\\slash", "tab\tnew\nline\rreturn", "\u{0}\u{1}\u{1f}\u{7f}",
        "\u{8}\u{c}", "é ü 漢字 🙂", "\u{2028}\u{2029}", "<script>",
    ]

    static func sample(_ text: String) -> Tree {
        let leaf = Leaf(
            name: text, count: -42, big: .max, small: .min, flag: true, ratio: 0.25, maybe: nil, bytes: [0, 255])
        return Tree(
            kind: .cellular,
            leaves: [
                leaf,
                Leaf(
                    name: "b", count: 0, big: 0, small: 0, flag: false, ratio: nil,
                    maybe: "x", bytes: []),
            ],
            byName: ["Zeta": 1, "alpha": 2, "a10": 3, "a2": 4, text: 5], nested: [[], [1, 2], [3]],
            optionalLeaf: nil, zebra: false, aardvark: true)
    }

    static func foundationBytes(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return [UInt8](try encoder.encode(value))
    }

    @Test func encodesTheBytesFoundationWrote() throws {
        for text in Self.awkwardStrings {
            let tree = Self.sample(text)
            let ours = String(decoding: try JSONValueEncoder().encode(tree), as: UTF8.self)
            #expect(ours == String(decoding: try Self.foundationBytes(tree), as: UTF8.self))
        }
    }

    @Test func writesNumbersAsFoundationDid() throws {
        let values: [Double] = [0, -0.0, 3, 0.1, 1e-5, 1e20, 123_456.789, -2.5, 9_007_199_254_740_992, 1.0e300]
        #expect(try JSONValueEncoder().encode(values) == Self.foundationBytes(values))
        let floats: [Float] = [0.1, 3, -1.5]
        #expect(try JSONValueEncoder().encode(floats) == Self.foundationBytes(floats))
    }

    @Test func refusesNumbersJSONCannotHold() {
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode([Double.nan]) }
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(["x": Double.infinity]) }
    }

    @Test func decodesWhatItEncodes() throws {
        for text in Self.awkwardStrings {
            let tree = Self.sample(text)
            #expect(try JSONValueDecoder().decode(Tree.self, from: JSONValueEncoder().encode(tree)) == tree)
            #expect(try JSONValueDecoder().decode(Tree.self, from: Self.foundationBytes(tree)) == tree)
        }
    }

    @Test func readsNumbersExactlyOrNotAtAll() throws {
        let decoder = JSONValueDecoder()
        #expect(try decoder.decode([UInt64].self, from: Array("[18446744073709551615]".utf8)) == [.max])
        #expect(try decoder.decode([Int].self, from: Array("[1.0, 2e0, -3E+0]".utf8)) == [1, 2, -3])
        for (text, type) in [("[256]", "UInt8"), ("[1.5]", "Int"), ("[-1]", "UInt"), ("[1e400]", "Int")] {
            let error = #expect(throws: DecodingError.self, "\(text) as \(type)") {
                switch type {
                case "UInt8": _ = try decoder.decode([UInt8].self, from: Array(text.utf8))
                case "UInt": _ = try decoder.decode([UInt].self, from: Array(text.utf8))
                default: _ = try decoder.decode([Int].self, from: Array(text.utf8))
                }
            }
            guard case .dataCorrupted(let context)? = error else {
                Issue.record("\(text): \(String(describing: error))")
                continue
            }
            #expect(context.codingPath.map(\.intValue) == [0])
        }
        #expect(throws: DecodingError.self) { try decoder.decode([Double].self, from: Array("[1e999]".utf8)) }
    }

    /// VarlinkCodec turns these paths into the `invalidField` clients see, so they must be Foundation's.
    @Test func errorsNameTheFieldsFoundationNamed() throws {
        let documents = [
            #"{"kind":"wifi","leaves":[{"name":1}],"byName":{},"nested":[],"zebra":true,"aardvark":true}"#,
            #"{"kind":"wifi","leaves":[],"byName":{"a":"x"},"nested":[],"zebra":true,"aardvark":true}"#,
            #"{"kind":"wifi","leaves":[],"byName":{},"nested":[[1,"2"]],"zebra":true,"aardvark":true}"#,
            #"{"kind":"wifi","leaves":[],"byName":{},"nested":[],"zebra":null,"aardvark":true}"#,
            #"{"kind":"wifi","leaves":[],"byName":{},"nested":[],"aardvark":true}"#,
            #"{"kind":"modem","leaves":[],"byName":{},"nested":[],"zebra":true,"aardvark":true}"#,
            #"{"kind":"wifi","leaves":{},"byName":{},"nested":[],"zebra":true,"aardvark":true}"#,
        ]
        for document in documents {
            let ours = Self.summary(of: { try JSONValueDecoder().decode(Tree.self, from: Array(document.utf8)) })
            let theirs = Self.summary(of: { try JSONDecoder().decode(Tree.self, from: Data(document.utf8)) })
            #expect(ours == theirs, "\(document)")
            #expect(ours != "decoded", "\(document)")
        }
    }

    /// The kind of error and its coding path (plus the key, for a missing one), as VarlinkCodec reads them.
    static func summary(of decode: () throws -> Tree) -> String {
        do {
            _ = try decode()
            return "decoded"
        } catch let error as DecodingError {
            func path(_ context: DecodingError.Context) -> String {
                context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            }
            switch error {
            case .keyNotFound(let key, let context): return "keyNotFound \(path(context)) \(key.stringValue)"
            case .typeMismatch(_, let context): return "typeMismatch \(path(context))"
            case .valueNotFound(_, let context): return "valueNotFound \(path(context))"
            case .dataCorrupted(let context): return "dataCorrupted \(path(context))"
            @unknown default: return "unknown"
            }
        } catch {
            return "other \(error)"
        }
    }

    /// An object that names a member twice means what each reader makes of it (JSONDecoder and pathmond's old
    /// reader kept the first, json-glib keeps the last): it is refused, typed, wherever the repeat is, however the
    /// names are spelled, in a small object (compared one by one) as in a large one (through a set).
    @Test(arguments: [
        (#"{"a":1,"b":2,"a":3}"#, 13, "a"),
        (#"{"method":"io.pathmond.GetPath","method":"io.pathmond.SetConstrained"}"#, 32, "method"),
        (#"{"parameters":{"requirements":{"family":"ipv4","family":"ipv6"}}}"#, 47, "family"),
        (#"[{"x":[{"k":1,"k":1}]}]"#, 14, "k"),
        (#"{"a":1,"a":2}"#, 7, "a"),
        (#"{"":1,"":2}"#, 6, ""),
        (JSONCodingTests.largeObject(repeating: 0), 311, "m0"),
        (JSONCodingTests.largeObject(repeating: 31), 311, "m31"),
        (JSONCodingTests.largeObject(repeating: 39), 311, "m39"),
    ])
    func repeatedMembersAreRefused(text: String, offset: Int, name: String) {
        let error = #expect(throws: JSONSyntaxError.self) { try JSONReader.parse(Array(text.utf8)) }
        #expect(error?.kind == .duplicateMember(name), "\(text)")
        #expect(error?.offset == offset, "\(text)")
        #expect(throws: DecodingError.self) {
            try JSONValueDecoder().decode([String: Int].self, from: Array(text.utf8))
        }
    }

    /// Forty members "m0" to "m39" of one-digit values (past the reader's linear check), then `"m\(index)":0`
    /// repeating one of them.
    static func largeObject(repeating index: Int) -> String {
        "{" + (0..<40).map { #""m\#($0)":\#($0 % 10)"# }.joined(separator: ",") + #","m\#(index)":0}"#
    }

    @Test func objectsOfManyDistinctMembersAreRead() throws {
        let text = "{" + (0..<80).map { #""m\#($0)":\#($0)"# }.joined(separator: ",") + "}"
        guard case .object(let members) = try JSONReader.parse(Array(text.utf8)) else {
            Issue.record("not an object")
            return
        }
        #expect(members.map(\.0) == (0..<80).map { "m\($0)" })
    }

    static let malformed = [
        "", "{", "[1,]", #"{"a":1}x"#, #"{"a" 1}"#, "[01]", "[+1]", "[.5]", "nul", #"["\x"]"#, #"["\ud800"]"#,
        "[\"tab\there\"]", "[1e]", "{'a':1}", "{\"a\":1,}",
    ]

    @Test func malformedInputIsDataCorrupted() {
        for text in Self.malformed {
            let error = #expect(throws: DecodingError.self, "\(text)") {
                try JSONValueDecoder().decode(JSONShape.self, from: Array(text.utf8))
            }
            guard case .dataCorrupted(let context)? = error else {
                Issue.record("\(text): \(String(describing: error))")
                continue
            }
            #expect(context.debugDescription.hasPrefix("not valid JSON: "), "\(text)")
        }
    }

    @Test func invalidUTF8InAStringIsRefused() {
        let bytes: [UInt8] = [UInt8(ascii: "["), UInt8(ascii: "\""), 0xC3, 0x28, UInt8(ascii: "\""), UInt8(ascii: "]")]
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode([String].self, from: bytes) }
    }

    @Test func nestingIsBounded() throws {
        let deep = { (depth: Int) in
            Array((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
        }
        #expect(throws: Never.self) { try JSONValueDecoder().decode(JSONShape.self, from: deep(32)) }
        let error = #expect(throws: DecodingError.self) {
            try JSONValueDecoder().decode(JSONShape.self, from: deep(33))
        }
        if case .dataCorrupted(let context)? = error {
            #expect(context.debugDescription.contains("nested too deeply"))
        } else {
            Issue.record("\(String(describing: error))")
        }
        // A hostile depth far past the bound fails the same way, without exhausting the stack.
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(JSONShape.self, from: deep(1_000_000)) }
    }

    /// Any array nesting, for the depth test.
    indirect enum JSONShape: Decodable {
        case list([JSONShape])
        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            var elements: [JSONShape] = []
            while !container.isAtEnd { elements.append(try container.decode(JSONShape.self)) }
            self = .list(elements)
        }
    }

    @Test func anEmptyEncodableIsAnEmptyObject() throws {
        struct Nothing: Encodable {}
        #expect(try JSONValueEncoder().encode(Nothing()) == Array("{}".utf8))
        #expect(try Self.foundationBytes(Nothing()) == Array("{}".utf8))
    }

    /// A parsed document written back: the same text, members in document order.
    @Test func writerWritesWhatTheReaderRead() throws {
        let text = #"{"b":[1,-2.5e3,true,null,{"x":"y\n"}],"a":{},"c":[],"s":"é/\\"}"#
        var bytes: [UInt8] = []
        JSONWriter.append(try JSONReader.parse(Array(text.utf8)), to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == text)
    }

    @Test func writerEscapesAsTheEncoder() throws {
        for text in Self.awkwardStrings {
            var bytes: [UInt8] = []
            JSONWriter.appendString(text, to: &bytes)
            #expect(bytes == (try Self.foundationBytes(text)))
        }
    }
}
