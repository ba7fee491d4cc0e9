/// Shell-style name patterns (`*`, `?`, `[abc]`, `[a-z]`, `[!a]`), as interface names are matched in
/// systemd .link and NetworkManager files.
struct Glob {
    private let pattern: [Character]

    init(_ pattern: String) {
        self.pattern = Array(pattern)
    }

    func matches(_ text: String) -> Bool {
        Self.match(pattern[...], Array(text)[...])
    }

    private static func match(_ pattern: ArraySlice<Character>, _ text: ArraySlice<Character>) -> Bool {
        guard let first = pattern.first else { return text.isEmpty }
        switch first {
        case "*":
            let rest = pattern.dropFirst()
            var suffix = text
            while true {
                if match(rest, suffix) { return true }
                guard !suffix.isEmpty else { return false }
                suffix = suffix.dropFirst()
            }
        case "?":
            return !text.isEmpty && match(pattern.dropFirst(), text.dropFirst())
        case "[":
            guard let character = text.first, let (matched, rest) = matchClass(pattern.dropFirst(), character) else {
                // An unterminated "[" is an ordinary character.
                return text.first == "[" && match(pattern.dropFirst(), text.dropFirst())
            }
            return matched && match(rest, text.dropFirst())
        default:
            return text.first == first && match(pattern.dropFirst(), text.dropFirst())
        }
    }

    /// Matches one character against a bracket class; returns the verdict and the pattern after the class,
    /// or nil if the class has no closing bracket.
    private static func matchClass(
        _ pattern: ArraySlice<Character>, _ character: Character
    ) -> (Bool, ArraySlice<Character>)? {
        var rest = pattern
        let negated = rest.first == "!" || rest.first == "^"
        if negated { rest = rest.dropFirst() }
        var matched = false
        var isFirst = true
        while let current = rest.first {
            if current == "]" && !isFirst {
                return (matched != negated, rest.dropFirst())
            }
            isFirst = false
            let afterCurrent = rest.dropFirst()
            if afterCurrent.first == "-", let upper = afterCurrent.dropFirst().first, upper != "]" {
                if current <= character && character <= upper { matched = true }
                rest = afterCurrent.dropFirst(2)
            } else {
                if current == character { matched = true }
                rest = afterCurrent
            }
        }
        return nil
    }
}
