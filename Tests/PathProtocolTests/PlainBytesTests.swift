// SPDX-License-Identifier: Apache-2.0
import PathProtocol
import Testing

/// The word-at-a-time test says what the byte-by-byte rule says, for both of its uses (a JSON string's content, a
/// log line): every byte value at every place of a text long enough for two words and a tail, and random texts.
@Suite struct PlainBytesTests {
    static let uses: [(first: UInt8, second: UInt8, asciiOnly: Bool)] = [(0x22, 0x5C, false), (0x7F, 0x5C, true)]

    static func byteRule(_ bytes: [UInt8], _ use: (first: UInt8, second: UInt8, asciiOnly: Bool)) -> Bool {
        bytes.allSatisfy {
            $0 >= 0x20 && $0 != use.first && $0 != use.second && !(use.asciiOnly && $0 >= 0x80)
        }
    }

    static func wordTest(_ bytes: [UInt8], _ use: (first: UInt8, second: UInt8, asciiOnly: Bool)) -> Bool {
        bytes.withUnsafeBufferPointer {
            PlainBytes.none(of: $0, belowSpaceOr: use.first, use.second, asciiOnly: use.asciiOnly)
        }
    }

    @Test(arguments: 0..<2)
    func everyByteAtEveryPlace(use: Int) {
        let use = Self.uses[use]
        for byte in UInt8.min...UInt8.max {
            for place in 0..<19 {
                var text = [UInt8](repeating: UInt8(ascii: "a"), count: 19)
                text[place] = byte
                #expect(Self.wordTest(text, use) == Self.byteRule(text, use), "byte \(byte) at \(place)")
            }
        }
    }

    @Test(arguments: 0..<2)
    func randomTexts(use: Int) {
        let use = Self.uses[use]
        var random = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let text = (0..<Int.random(in: 0...40, using: &random)).map { _ in
                Bool.random(using: &random)
                    ? UInt8.random(in: 0x20...0x7E, using: &random) : UInt8.random(in: 0...255, using: &random)
            }
            #expect(Self.wordTest(text, use) == Self.byteRule(text, use), "\(text)")
        }
    }
}
