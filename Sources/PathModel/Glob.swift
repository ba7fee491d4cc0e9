// SPDX-License-Identifier: Apache-2.0
/// Shell-style name patterns (`*`, `?`, `[abc]`, `[a-z]`, `[!a]`), as interface names are matched in
/// systemd .link and NetworkManager files.
struct Glob {
    /// Longer patterns are refused by the configuration: an interface name has at most 15 bytes (IFNAMSIZ), so
    /// a pattern this long is a mistake, and a bound keeps matching cheap.
    static let maximumLength = 255

    private let pattern: [Character]

    init(_ pattern: String) {
        self.pattern = Array(pattern)
    }

    /// Why `pattern` cannot be used, or nil when it can: a "[" whose class is never closed (fnmatch would take it
    /// as a literal "[", which is never what the writer of `[interface eth[]` meant) or a pattern too long.
    static func problem(in pattern: String) -> String? {
        let characters = Array(pattern)
        guard characters.count <= maximumLength else {
            return "a pattern has at most \(maximumLength) characters, this one \(characters.count)"
        }
        var index = 0
        while index < characters.count {
            if characters[index] == "[" {
                guard let end = classEnd(characters[...], from: index + 1) else {
                    return "the \"[\" at character \(index + 1) opens a class that is never closed with \"]\""
                }
                index = end
            }
            index += 1
        }
        return nil
    }

    /// Whether `text` matches. Iterative, with one backtracking point (the last `*`): time is at most the
    /// product of the two lengths, whatever the number of stars (a recursive matcher takes exponential time on
    /// `*a*a*a*…b` and a stack frame per character).
    func matches(_ text: String) -> Bool {
        let text = Array(text)
        var patternIndex = 0
        var textIndex = 0
        var star: (pattern: Int, text: Int)?
        while textIndex < text.count {
            if patternIndex < pattern.count {
                if pattern[patternIndex] == "*" {
                    star = (patternIndex, textIndex)
                    patternIndex += 1
                    continue
                }
                if let next = matchOne(at: patternIndex, text[textIndex]) {
                    patternIndex = next
                    textIndex += 1
                    continue
                }
            }
            // Mismatch: let the last star swallow one more character, or fail.
            guard let last = star else { return false }
            star = (last.pattern, last.text + 1)
            patternIndex = last.pattern + 1
            textIndex = last.text + 1
        }
        while patternIndex < pattern.count && pattern[patternIndex] == "*" { patternIndex += 1 }
        return patternIndex == pattern.count
    }

    /// The pattern index after the element at `index` when it matches `character`; nil when it does not.
    private func matchOne(at index: Int, _ character: Character) -> Int? {
        switch pattern[index] {
        case "?":
            return index + 1
        case "[":
            // An unterminated "[" is an ordinary character.
            guard let end = Self.classEnd(pattern[...], from: index + 1) else {
                return character == "[" ? index + 1 : nil
            }
            return classMatches(pattern[(index + 1)..<end], character) ? end + 1 : nil
        case let literal:
            return literal == character ? index + 1 : nil
        }
    }

    /// The index of the "]" closing a class whose body starts at `start`; nil if there is none. A "]" first in
    /// the class (after any "!" or "^") is literal.
    private static func classEnd(_ pattern: ArraySlice<Character>, from start: Int) -> Int? {
        var index = start
        if index < pattern.endIndex && (pattern[index] == "!" || pattern[index] == "^") { index += 1 }
        if index < pattern.endIndex && pattern[index] == "]" { index += 1 }
        while index < pattern.endIndex {
            if pattern[index] == "]" { return index }
            index += 1
        }
        return nil
    }

    /// Whether `character` is in the class whose body (between "[" and "]") is `body`.
    private func classMatches(_ body: ArraySlice<Character>, _ character: Character) -> Bool {
        var rest = body
        let negated = rest.first == "!" || rest.first == "^"
        if negated { rest = rest.dropFirst() }
        var matched = false
        while let current = rest.first {
            let afterCurrent = rest.dropFirst()
            if afterCurrent.first == "-", let upper = afterCurrent.dropFirst().first {
                if current <= character && character <= upper { matched = true }
                rest = afterCurrent.dropFirst(2)
            } else {
                if current == character { matched = true }
                rest = afterCurrent
            }
        }
        return matched != negated
    }
}
