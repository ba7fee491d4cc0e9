// SPDX-License-Identifier: Apache-2.0
import JSON
import Testing

/// A JSON string's bytes are taken as text exactly when they are valid UTF-8: the reader's own check (decoding
/// repairs, so changed bytes were invalid) held against the standard library's `String(validating:as:)`, on every
/// sequence of one and two bytes and on three- and four-byte sequences around every boundary UTF-8 draws (overlong
/// forms, surrogates, the end of Unicode), with and without escapes before them.
@Suite struct StringValidationTests {
    /// What the reader makes of `"` + bytes + `"` (and of the same after an escape, which takes the slower way).
    private static func parsed(_ bytes: [UInt8], escaped: Bool) -> String? {
        let prefix: [UInt8] = escaped ? Array(#"\n"#.utf8) : []
        var reader = JSONReader([UInt8(ascii: "\"")] + prefix + bytes + [UInt8(ascii: "\"")])
        guard let text = try? reader.parseString() else { return nil }
        return escaped ? String(text.dropFirst()) : text
    }

    private static func check(_ bytes: [UInt8]) {
        // Bytes the reader treats as syntax, not content: a quote, a backslash, a control character.
        guard !bytes.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }) else {
            return
        }
        let expected = String(validating: bytes, as: UTF8.self)
        for escaped in [false, true] {
            let got = parsed(bytes, escaped: escaped)
            #expect(got == expected, "\(bytes.map { String($0, radix: 16) }) escaped: \(escaped)")
        }
    }

    @Test func everySequenceOfOneAndTwoBytes() {
        for first in 0...255 {
            Self.check([UInt8(first)])
            for second in 0...255 { Self.check([UInt8(first), UInt8(second)]) }
        }
    }

    @Test func threeAndFourBytesAroundEveryBoundary() {
        let leads: [UInt8] = [
            0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
        ]
        let continuations: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF]
        for lead in leads {
            for second in continuations {
                for third in continuations {
                    Self.check([lead, second, third])
                    for fourth in continuations { Self.check([lead, second, third, fourth]) }
                }
            }
        }
        // U+FFFD itself, sent as such, is valid text; the repair's own bytes do not make it look invalid.
        Self.check([0xEF, 0xBF, 0xBD])
        #expect(Self.parsed([0xEF, 0xBF, 0xBD], escaped: false) == "\u{FFFD}")
    }
}
