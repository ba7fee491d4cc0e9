// SPDX-License-Identifier: Apache-2.0
/// KEY=VALUE files as systemd's `parse_env_file` reads them, the format of networkd's leases and link state,
/// resolved's link files and NetworkManager's internal-client leases: lines end at "\n" or "\r"; blanks around
/// keys and values are dropped; a line whose first non-blank character is "#" or ";" is a comment; a line without
/// "=" is skipped; a value wrapped in matching quotes loses them.
///
/// Works on the UTF-8 bytes: every character that matters here is ASCII, which never occurs inside a multi-byte
/// sequence, so each cut lands between characters. (Splitting by `Character` cost grapheme breaking for every
/// byte of every file: ten times slower, for no gain.)
enum EnvironmentFile {
    static func pairs(_ text: String) -> [(key: Substring, value: Substring)] {
        var pairs: [(key: Substring, value: Substring)] = []
        let bytes = text.utf8
        for line in bytes.split(whereSeparator: { $0 == newline || $0 == carriageReturn }) {
            let content = trimmed(line)
            guard let first = content.first, first != UInt8(ascii: "#"), first != UInt8(ascii: ";"),
                let equals = content.firstIndex(of: UInt8(ascii: "="))
            else { continue }
            var value = trimmed(content[content.index(after: equals)...])
            if value.count >= 2, let quote = value.first, quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'"),
                value.last == quote
            {
                value = value.dropFirst().dropLast()
            }
            pairs.append((Substring(trimmed(content[..<equals])), Substring(value)))
        }
        return pairs
    }

    /// Without leading and trailing blanks (space, tab, vertical tab, form feed).
    static func trimmed(_ bytes: Substring.UTF8View) -> Substring.UTF8View {
        var result = bytes.drop(while: isBlank)
        while let last = result.last, isBlank(last) { result = result.dropLast() }
        return result
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == 0x0b || byte == 0x0c
    }

    private static let newline = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")
}
