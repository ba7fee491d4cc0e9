// SPDX-License-Identifier: Apache-2.0
/// Characters a person cannot see as themselves where pathmond shows text: in a terminal, the journal, a metrics
/// dashboard. Interface names, SSIDs and users' names for networks may hold any of them (the kernel refuses only
/// "/", ":", NUL and white space in a name), and each can make one name pass for another or garble a line:
///
/// - control characters (C0, DEL, C1) move the cursor, clear the screen, ring the bell or end the line;
/// - bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) reorder the rest of a line;
/// - invisible characters (U+200B–U+200D, U+2060–U+2064, U+FEFF, the soft hyphen U+00AD, Hangul fillers, and every
///   other default-ignorable or format character) print as nothing, so "eth0" and "eth0" + U+200B look alike;
/// - the line and paragraph separators U+2028 and U+2029 break a line;
/// - code points this Unicode version leaves unassigned, which no font can be trusted to draw.
///
/// A variation selector (U+FE00–U+FE0F) is kept after an emoji, whose presentation it picks, and a zero-width joiner
/// (U+200D) between two emoji, which it joins into one picture ("👩‍💻"); anywhere else they are invisible.
/// Everything else, letters of every script, emoji and spaces, is shown as itself.
public enum HiddenText {
    /// Whether `scalar`, between `previous` and `next` (nil at either end), would not be seen as itself.
    public static func isHidden(
        _ scalar: Unicode.Scalar, after previous: Unicode.Scalar?, before next: Unicode.Scalar? = nil
    ) -> Bool {
        let value = scalar.value
        if value < 0x20 || (0x7f..<0xa0).contains(value) { return true }
        // Printable ASCII: the common case, decided without looking up properties.
        if value < 0x7f { return false }
        // A joiner after an emoji (or its modifier or presentation selector) and before another.
        if value == 0x200d, let previous, let next, isEmoji(next),
            isEmoji(previous) || previous.properties.isEmojiModifier || previous.value == 0xfe0f
        {
            return false
        }
        let properties = scalar.properties
        switch properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .unassigned: return true
        default: break
        }
        guard properties.isDefaultIgnorableCodePoint else { return false }
        if (0xfe00...0xfe0f).contains(value), let previous, isEmoji(previous) { return false }
        return true
    }

    /// Whether every character of `text` would be seen as itself.
    public static func isVisible(_ text: String) -> Bool {
        var previous: Unicode.Scalar?
        var scalars = text.unicodeScalars.makeIterator()
        var current = scalars.next()
        while let scalar = current {
            let next = scalars.next()
            if isHidden(scalar, after: previous, before: next) { return false }
            previous = scalar
            current = next
        }
        return true
    }

    /// An emoji outside ASCII (the digits, "#" and "*" are emoji only as keycap bases).
    private static func isEmoji(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value > 0x7f && scalar.properties.isEmoji
    }
}
