// SPDX-License-Identifier: Apache-2.0
import PathModel

/// Text from outside (interface names, SSIDs, users' names for networks, file names) made safe for every surface a
/// person reads: pathctl's output, the journal, metrics label values. Every character `HiddenText` calls hidden is
/// written as a visible escape, and a backslash as two, so a hostile name can neither move the cursor, reorder a
/// line nor pass for another name, and two different names never print alike:
///
/// - a hidden ASCII character (C0, DEL) as `\xNN`, as systemd's tools print names (cescape): ESC is `\x1b`;
/// - any other hidden character as `\u{NNNN}`, its code point in hexadecimal: U+202E is `\u{202E}`;
/// - a byte that is not part of valid UTF-8 (only `escaped(utf8:)` sees one) as `\xNN`, 80 to FF, which no
///   escaped character uses.
public enum HumanText {
    /// `text` with every hidden character, and every backslash, escaped.
    public static func escaped(_ text: String) -> String {
        if !text.unicodeScalars.contains("\\") && HiddenText.isVisible(text) { return text }
        var result = ""
        var previous: Unicode.Scalar?
        var scalars = text.unicodeScalars.makeIterator()
        var current = scalars.next()
        while let scalar = current {
            let next = scalars.next()
            append(scalar, after: previous, before: next, to: &result)
            previous = scalar
            current = next
        }
        return result
    }

    /// Bytes that should be UTF-8 (a name as the kernel keeps it), escaped as `escaped(_:)` does, and every byte
    /// that is not part of a valid UTF-8 sequence as `\xNN`.
    public static func escaped(utf8 bytes: some Collection<UInt8>) -> String {
        var result = ""
        var previous: Unicode.Scalar?
        var rest = bytes[...]
        while !rest.isEmpty {
            // A fresh parser per character: an error then spans exactly the bytes it reports.
            var parser = Unicode.UTF8.ForwardParser()
            var iterator = rest.makeIterator()
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                rest = rest.dropFirst(encoded.count)
                append(scalar, after: previous, before: firstScalar(of: rest), to: &result)
                previous = scalar
            case .error(let length):
                for byte in rest.prefix(length) { result += "\\x" + hex(UInt32(byte), digits: 2, uppercase: false) }
                previous = nil
                rest = rest.dropFirst(length)
            case .emptyInput:
                rest = rest.dropFirst(rest.count)
            }
        }
        return result
    }

    /// How many terminal columns `text` takes: the sum of its characters' widths (`displayWidth(of:)`), as
    /// wcswidth(3) counts them. Meant for text already `escaped`, which holds no control character.
    public static func displayWidth(_ text: some StringProtocol) -> Int {
        var width = 0
        var previous: Unicode.Scalar?
        for scalar in text.unicodeScalars {
            width += displayWidth(of: scalar, after: previous)
            previous = scalar
        }
        return width
    }

    /// The columns one character takes: 2 for East Asian wide and fullwidth characters and for emoji shown as
    /// pictures, 0 for combining marks, the medial and final Hangul jamo and hidden characters, 1 otherwise.
    public static func displayWidth(of scalar: Unicode.Scalar, after previous: Unicode.Scalar? = nil) -> Int {
        let value = scalar.value
        if value >= 0x20 && value < 0x7f { return 1 }
        if HiddenText.isHidden(scalar, after: previous) { return 0 }
        if (0xfe00...0xfe0f).contains(value) { return 0 }  // a variation selector kept after an emoji
        let properties = scalar.properties
        switch properties.generalCategory {
        case .nonspacingMark, .enclosingMark: return 0
        default: break
        }
        if (0x1160...0x11ff).contains(value) || (0xd7b0...0xd7ff).contains(value) { return 0 }
        if properties.isEmojiPresentation || wideRanges.contains(where: { $0.contains(value) }) { return 2 }
        return 1
    }

    /// The longest beginning of `text`, in whole characters, at most `width` columns wide.
    public static func prefix(_ text: String, displayWidth width: Int) -> String {
        var result = ""
        var used = 0
        for character in text {
            let next = displayWidth(String(character))
            guard used + next <= width else { break }
            result.append(character)
            used += next
        }
        return result
    }

    /// East Asian Width W and F (UAX #11) outside the emoji, which `isEmojiPresentation` covers.
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115f, 0x2329...0x232a, 0x2e80...0x303e, 0x3041...0x33ff, 0x3400...0x4dbf, 0x4e00...0x9fff,
        0xa000...0xa4cf, 0xa960...0xa97f, 0xac00...0xd7a3, 0xf900...0xfaff, 0xfe10...0xfe19, 0xfe30...0xfe6f,
        0xff00...0xff60, 0xffe0...0xffe6, 0x16fe0...0x16fe4, 0x17000...0x18cff, 0x1aff0...0x1b2ff, 0x1f200...0x1f2ff,
        0x20000...0x2fffd, 0x30000...0x3fffd,
    ]

    /// The character `bytes` begin with, if they begin with valid UTF-8.
    private static func firstScalar(of bytes: some Collection<UInt8>) -> Unicode.Scalar? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        guard case .valid(let encoded) = parser.parseScalar(from: &iterator) else { return nil }
        return Unicode.UTF8.decode(encoded)
    }

    private static func append(
        _ scalar: Unicode.Scalar, after previous: Unicode.Scalar?, before next: Unicode.Scalar?,
        to result: inout String
    ) {
        if scalar == "\\" {
            result += "\\\\"
        } else if !HiddenText.isHidden(scalar, after: previous, before: next) {
            result.unicodeScalars.append(scalar)
        } else if scalar.value < 0x80 {
            result += "\\x" + hex(scalar.value, digits: 2, uppercase: false)
        } else {
            result += "\\u{" + hex(scalar.value, digits: 4, uppercase: true) + "}"
        }
    }

    private static func hex(_ value: UInt32, digits: Int, uppercase: Bool) -> String {
        let text = String(value, radix: 16, uppercase: uppercase)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
