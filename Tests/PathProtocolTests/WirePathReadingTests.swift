// SPDX-License-Identifier: Apache-2.0
import JSON
import PathModel
import PathProtocol
import Testing

/// The path reply's readers (`WirePath+Reading.swift`), which clients use instead of the Decoder, read what the
/// synthesized `Decodable` reads and refuse what it refuses: on the daemon's own replies, and on each of them
/// changed one member at a time (taken out, made null, given another type, a number out of range or written as a
/// real, an unknown member added), the two agree on every document.
extension StreamedReplyWriterTests {
    /// The reply's parameters as the Decoder reads them, and as the reader does; nil where each refuses.
    private static func bothWays(_ parameters: JSONValue) -> (decoded: WirePath?, read: WirePath?) {
        var bytes: [UInt8] = []
        JSONWriter.append(parameters, to: &bytes)
        let decoded = try? JSONValueDecoder().decode(Methods.PathReply.self, from: bytes).path
        // Read from the bytes, as a client reads a reply (a change may not be JSON any more: "--1").
        let read = (try? JSONReader.parse(bytes)).flatMap { try? Methods.PathReply(json: $0).path }
        return (decoded, read)
    }

    /// The daemon's reply for `path`: its parameters as a document.
    private static func parameters(of path: WirePath) throws -> JSONValue {
        var frame = StreamedReplyWriter.pathReply(path, continues: false)
        frame.removeLast()  // the NUL
        return try #require(try JSONReader.parse(frame).object().optional("parameters"))
    }

    @Test func theDaemonsRepliesAreReadAsDecoded() throws {
        var random = SplitMix(seed: 0x7265_6164)
        for round in 0..<1_000 {
            let path = randomPath(&random, interfaceCount: round % 100 == 0 ? 20 : nil)
            let (decoded, read) = Self.bothWays(try Self.parameters(of: path))
            #expect(decoded == path && read == path)
            if read != path { return }
        }
    }

    @Test func everyChangeOfOneMemberIsReadAsDecoded() throws {
        var random = SplitMix(seed: 0x6d75_7461)
        var agreedRefusals = 0
        var agreedReadings = 0
        for _ in 0..<150 {
            let document = try Self.parameters(of: randomPath(&random, interfaceCount: Int(random.next() % 3)))
            for changed in Self.changes(of: document) {
                let (decoded, read) = Self.bothWays(changed)
                #expect(decoded == read, "\(changed)")
                if decoded != read { return }
                if read == nil { agreedRefusals += 1 } else { agreedReadings += 1 }
            }
        }
        // Both kinds happen: the changes test refusals and readings alike.
        #expect(agreedRefusals > 1_000 && agreedReadings > 1_000, "\(agreedRefusals) \(agreedReadings)")
    }

    /// Every document that differs from `document` in one member, at any depth: each member taken out, made null,
    /// replaced by a value of every other type, and each number written as a real, made negative and pushed past
    /// 64 bits; and an unknown member added to each object.
    static func changes(of document: JSONValue) -> [JSONValue] {
        let replacements: [JSONValue] = [
            .null, .bool(true), .number("7"), .string("wired"), .array([]), .object([]),
        ]
        switch document {
        case .object(let members):
            var changed: [JSONValue] = [.object(members + [("unknownMember", .number("1"))])]
            for (position, member) in members.enumerated() {
                var without = members
                without.remove(at: position)
                changed.append(.object(without))
                var alternatives = replacements.filter { $0 != member.1 }
                if case .number(let text) = member.1 {
                    alternatives += [
                        .number(text + ".0"), .number(text + "e0"), .number("-" + text), .number(text + ".5"),
                    ]
                    alternatives.append(.number("18446744073709551616"))
                }
                alternatives += changes(of: member.1)
                for alternative in alternatives {
                    var replaced = members
                    replaced[position].1 = alternative
                    changed.append(.object(replaced))
                }
            }
            return changed
        case .array(let elements):
            var changed: [JSONValue] = []
            for (position, element) in elements.enumerated() {
                for alternative in [.null, .number("3")] + changes(of: element) {
                    var replaced = elements
                    replaced[position] = alternative
                    changed.append(.array(replaced))
                }
            }
            return changed
        default:
            return []
        }
    }
}
