// SPDX-License-Identifier: Apache-2.0
import PathmondClient

#if canImport(Glibc)
    import Glibc
#endif

/// What the shell completes for arguments that name things on this machine: interface names from sysfs, network
/// keys from pathmond. The completion scripts call pathctl back for these as the user presses Tab, with the words
/// swift-argument-parser's scripts passed (the scripts installed before still work):
/// `pathctl ---completion VERB -- ARGUMENT WORD-INDEX CURSOR-INDEX WORDS...`, where ARGUMENT is `--long` for an
/// option's value or `positional@N` for the Nth argument, and WORDS the command line being completed.
enum Completions {
    /// Answers one call back: the candidates, one a line, that begin with the word being completed. Completion
    /// never fails loudly: a call it cannot read answers nothing.
    static func answer(_ words: [String], verbs: [VerbSpec]) -> ExitCode {
        guard words.count >= 5, words[1] == "--", let verb = verbs.first(where: { $0.name == words[0] }),
            let kind = kind(of: words[2], in: verb), let wordIndex = Int(words[3]), let cursor = Int(words[4])
        else { return .success }
        let line = Array(words.dropFirst(5))
        let current = wordIndex >= 0 && wordIndex < line.count ? line[wordIndex] : ""
        let prefix = String(current.prefix(max(0, cursor)))
        for candidate in candidates(kind, words: line) where candidate.hasPrefix(prefix) { print(candidate) }
        return .success
    }

    /// What the option (`--interface`) or argument (`positional@0`) of `verb` completes to.
    static func kind(of argument: String, in verb: VerbSpec) -> CompletionKind? {
        if argument.hasPrefix("--") { return verb.option(long: String(argument.dropFirst(2)))?.completion }
        guard argument.hasPrefix("positional@"), let index = Int(argument.dropFirst("positional@".count)),
            index >= 0, index < verb.arguments.count
        else { return nil }
        return verb.arguments[index].completion
    }

    static func candidates(_ kind: CompletionKind, words: [String]) -> [String] {
        switch kind {
        case .interface: return interfaceNames()
        case .networkKey: return networkKeys(socket: socket(in: words))
        case .networkKeyOrInterface: return interfaceNames() + networkKeys(socket: socket(in: words))
        case .values(let values): return values
        case .none, .file, .command: return []
        }
    }

    /// The names in `directory` (sysfs lists every interface of this network namespace there), sorted.
    static func interfaceNames(directory: String = "/sys/class/net") -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// The keys pathmond knows; none when it cannot be reached (completion must never fail loudly).
    static func networkKeys(socket: String) -> [String] {
        guard let connection = try? PathmondConnection(socketPath: socket) else { return [] }
        defer { connection.close() }
        return ((try? connection.networks()) ?? []).map(\.key).sorted()
    }

    /// The socket the command line being completed names (`--socket PATH` or `--socket=PATH`), else the one pathctl
    /// would use.
    static func socket(in words: [String]) -> String {
        for (index, word) in words.enumerated() {
            if word.hasPrefix("--socket=") { return String(word.dropFirst("--socket=".count)) }
            if word == "--socket", index + 1 < words.count { return words[index + 1] }
        }
        return ConnectionOptions.environmentSocket ?? PathmondConnection.defaultSocketPath
    }
}
