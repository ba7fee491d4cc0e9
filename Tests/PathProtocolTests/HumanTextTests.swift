// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import Testing

@Suite struct HumanTextTests {
    /// Every character the escaping must catch, with its escape.
    static let hidden: [(Unicode.Scalar, String)] =
        (0x00..<0x20).map { (Unicode.Scalar($0)!, "\\x" + hex($0)) } + [
            ("\u{7F}", "\\x7f")
        ]
        + (0x80..<0xa0).map { (Unicode.Scalar($0)!, "\\u{00" + hex($0).uppercased() + "}") }
        + [
            ("\u{AD}", "\\u{00AD}"),  // soft hyphen
            ("\u{61C}", "\\u{061C}"),  // Arabic letter mark
            ("\u{115F}", "\\u{115F}"),  // Hangul choseong filler
            ("\u{180E}", "\\u{180E}"),  // Mongolian vowel separator
            ("\u{200B}", "\\u{200B}"), ("\u{200C}", "\\u{200C}"), ("\u{200D}", "\\u{200D}"),
            ("\u{200E}", "\\u{200E}"), ("\u{200F}", "\\u{200F}"),
            ("\u{2028}", "\\u{2028}"), ("\u{2029}", "\\u{2029}"),
            ("\u{202A}", "\\u{202A}"), ("\u{202B}", "\\u{202B}"), ("\u{202C}", "\\u{202C}"),
            ("\u{202D}", "\\u{202D}"), ("\u{202E}", "\\u{202E}"),
            ("\u{2060}", "\\u{2060}"), ("\u{2061}", "\\u{2061}"), ("\u{2062}", "\\u{2062}"),
            ("\u{2063}", "\\u{2063}"), ("\u{2064}", "\\u{2064}"),
            ("\u{2066}", "\\u{2066}"), ("\u{2067}", "\\u{2067}"), ("\u{2068}", "\\u{2068}"), ("\u{2069}", "\\u{2069}"),
            ("\u{3164}", "\\u{3164}"),  // Hangul filler
            ("\u{FE0F}", "\\u{FE0F}"),  // a variation selector after no emoji
            ("\u{FEFF}", "\\u{FEFF}"),
            ("\u{FFF9}", "\\u{FFF9}"),  // interlinear annotation anchor
            ("\u{E0001}", "\\u{E0001}"),  // language tag
            ("\u{E0100}", "\\u{E0100}"),  // variation selector 17
            ("\u{50000}", "\\u{50000}"),  // unassigned
        ]

    private static func hex(_ value: Int) -> String {
        (value < 0x10 ? "0" : "") + String(value, radix: 16)
    }

    @Test func everyHiddenCharacterIsEscapedInsideAName() {
        for (scalar, escape) in Self.hidden {
            let name = "eth" + String(Character(scalar)) + "0"
            let printed = HumanText.escaped(name)
            #expect(printed == "eth\(escape)0", "U+\(String(scalar.value, radix: 16))")
            #expect(printed.unicodeScalars.allSatisfy { (0x20..<0x7f).contains($0.value) })
            #expect(!HiddenText.isVisible(name))
            #expect(HumanText.escaped(utf8: Array(name.utf8)) == printed)
        }
    }

    @Test(arguments: [
        "eth0", "wlp3s0", "Café", "Ünïcödé", "東京オフィス", "Кафе", "שלום", "مرحبا", "Office ☕", "📶 Home",
        "Gäste-WLAN 2,4 GHz", "a b", "x̃", "👍🏽", "❤️", "©️ 2026", "Mitarbeiter\u{3000}Netz", "under_score-dash.dot",
        "👩\u{200D}💻", "❤\u{FE0F}\u{200D}🔥", "👨🏽\u{200D}💻", "🏳\u{FE0F}\u{200D}🌈 Pride", "👨\u{200D}👩\u{200D}👧 Home",
    ])
    func visibleTextIsUnchanged(text: String) {
        #expect(HumanText.escaped(text) == text)
        #expect(HiddenText.isVisible(text))
        #expect(HumanText.escaped(utf8: Array(text.utf8)) == text)
    }

    @Test func backslashesAreDoubledSoNoTwoNamesPrintAlike() {
        #expect(HumanText.escaped(#"a\b"#) == #"a\\b"#)
        // The name that spells an escape and the name holding the character print differently.
        #expect(HumanText.escaped(#"eth\x1b"#) != HumanText.escaped("eth\u{1B}"))
        #expect(HumanText.escaped(#"\u{202E}"#) != HumanText.escaped("\u{202E}"))
        // A C1 character and an invalid byte of the same value print differently.
        #expect(HumanText.escaped("\u{85}") != HumanText.escaped(utf8: [0x85]))
    }

    @Test func invalidUTF8BytesAreEscapedOneByOne() {
        #expect(HumanText.escaped(utf8: [0x65, 0x74, 0x68, 0xff, 0x30]) == #"eth\xff0"#)
        #expect(HumanText.escaped(utf8: [0xc3]) == #"\xc3"#)  // truncated sequence
        #expect(HumanText.escaped(utf8: [0xc0, 0xaf]) == #"\xc0\xaf"#)  // overlong "/"
        #expect(HumanText.escaped(utf8: [0xed, 0xa0, 0x80]) == #"\xed\xa0\x80"#)  // a surrogate
        #expect(HumanText.escaped(utf8: [0xe2, 0x80, 0xae, 0x41]) == #"\u{202E}A"#)
        #expect(HumanText.escaped(utf8: []) == "")
    }

    @Test func aJoinerIsKeptOnlyBetweenEmoji() {
        #expect(HumanText.escaped("eth0\u{200D}") == #"eth0\u{200D}"#)
        #expect(HumanText.escaped("a\u{200D}b") == #"a\u{200D}b"#)
        #expect(HumanText.escaped("👩\u{200D}") == #"👩\u{200D}"#)
        #expect(HumanText.escaped("\u{200D}👩") == #"\u{200D}👩"#)
        #expect(HumanText.escaped("1\u{200D}👩") == #"1\u{200D}👩"#)
        #expect(HumanText.escaped(utf8: Array("👩\u{200D}💻".utf8)) == "👩\u{200D}💻")
        #expect(HumanText.escaped(utf8: Array("👩\u{200D}".utf8) + [0xff]) == #"👩\u{200D}\xff"#)
    }

    @Test func aVariationSelectorIsKeptOnlyAfterAnEmoji() {
        #expect(HumanText.escaped("\u{2764}\u{FE0F}") == "\u{2764}\u{FE0F}")
        #expect(HumanText.escaped("eth0\u{FE0F}") == #"eth0\u{FE0F}"#)
        #expect(HumanText.escaped("\u{FE0F}") == #"\u{FE0F}"#)
    }

    /// Every escape is printable ASCII, whatever the input: no byte sequence reaches a terminal raw.
    @Test func escapedBytesArePrintableASCIIOrVisible() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0...12, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            let printed = HumanText.escaped(utf8: bytes)
            #expect(HiddenText.isVisible(printed), "\(bytes)")
        }
    }

    @Test(arguments: [
        ("eth0", 4), ("", 0), ("Café", 4), ("Cafe\u{301}", 4), ("東京", 4), ("ｅｔｈ", 6), ("한국", 4),
        ("\u{1100}\u{1161}\u{11A8}", 2), ("📶", 2), ("👍🏽", 4), ("☕", 2), ("a\u{20DD}", 1), ("Кафе", 4),
        ("\u{3000}", 2), ("x\u{200B}y", 2), ("\u{2764}\u{FE0F}", 1), ("\u{20000}", 2), ("ｱ", 1),
    ])
    func displayWidthCountsColumns(text: String, width: Int) {
        #expect(HumanText.displayWidth(text) == width, "\(text.unicodeScalars.map(\.value))")
    }

    @Test func prefixCutsByColumnsAndKeepsCharactersWhole() {
        #expect(HumanText.prefix("東京オフィス", displayWidth: 5) == "東京")
        #expect(HumanText.prefix("東京オフィス", displayWidth: 6) == "東京オ")
        #expect(HumanText.prefix("Cafe\u{301} au lait", displayWidth: 4) == "Cafe\u{301}")
        #expect(HumanText.prefix("eth0", displayWidth: 0) == "")
        #expect(HumanText.prefix("eth0", displayWidth: 9) == "eth0")
    }
}
