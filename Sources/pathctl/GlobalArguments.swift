// SPDX-License-Identifier: Apache-2.0
import PathProtocol

/// Puts pathctl's command line in the shape the verbs' parser reads, so pathctl follows networkctl's and
/// resolvectl's conventions: global options (`--socket`, `--json`, `--no-legend`, `--no-pager`) may come before
/// the verb as well as after it, no verb means `status`, and a word that is not a verb is an error naming the verbs
/// rather than an argument to the default verb.
enum GlobalArguments {
    /// Global options that take a value as the next word (`--socket PATH`) or after `=`.
    static let valueOptions: Set<String> = ["--socket"]
    /// Global options that stand alone.
    static let flagOptions: Set<String> = ["--no-legend", "--no-pager"]

    /// Options of the root alone: packaging's (completion scripts, the man page).
    static let parserOptions: Set<Substring> = ["--generate-completion-script", "--generate-manual"]

    /// What to run: rewritten arguments, or a usage error to print.
    enum Outcome: Equatable {
        case run([String])
        case usageError(String)
    }

    /// Rewrites `arguments` (without the program name). `verbs` are the subcommands' names; `defaultVerb` runs
    /// when none is given; `standardOutputIsTerminal` decides what a bare `--json` means.
    static func normalize(
        _ arguments: [String], verbs: [String], defaultVerb: String, standardOutputIsTerminal: Bool
    ) -> Outcome {
        // The completion scripts and their callbacks and the man page generator read the command line as it is.
        if arguments.contains(where: { $0.hasPrefix("---") || parserOptions.contains($0.prefix { $0 != "=" }) }) {
            return .run(arguments)
        }
        var globals: [String] = []
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            if let json = jsonOption(word, next: index + 1 < arguments.count ? arguments[index + 1] : nil) {
                globals.append(jsonArgument(json.mode, terminal: standardOutputIsTerminal))
                index += json.consumed
                continue
            }
            if valueOptions.contains(word) {
                guard index + 1 < arguments.count else { return .usageError("\(word) needs a value") }
                globals += [word, arguments[index + 1]]
                index += 2
                continue
            }
            if flagOptions.contains(word) || valueOptions.contains(where: { word.hasPrefix($0 + "=") }) {
                globals.append(word)
                index += 1
                continue
            }
            break
        }
        let rest = Array(arguments[index...])
        guard let first = rest.first else { return .run([defaultVerb] + globals) }
        // Help and version belong to the root command; a verb's own options mean the default verb.
        if ["-h", "--help", "--version", "help"].contains(first) { return .run(rest + globals) }
        if first.hasPrefix("-") {
            return .run([defaultVerb] + globals + normalizeAfterVerb(rest, terminal: standardOutputIsTerminal))
        }
        guard verbs.contains(first) else {
            let list = verbs.joined(separator: ", ")
            return .usageError("unknown verb '\(HumanText.escaped(first))'; the verbs are: \(list)")
        }
        return .run([first] + globals + normalizeAfterVerb(Array(rest.dropFirst()), terminal: standardOutputIsTerminal))
    }

    /// After the verb only a bare `--json` (or `-j`) needs rewriting: the parser wants a value with it.
    private static func normalizeAfterVerb(_ arguments: [String], terminal: Bool) -> [String] {
        var result: [String] = []
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            if word == "--" {
                result += arguments[index...]
                break
            }
            if let json = jsonOption(word, next: index + 1 < arguments.count ? arguments[index + 1] : nil) {
                result.append(jsonArgument(json.mode, terminal: terminal))
                index += json.consumed
                continue
            }
            result.append(word)
            index += 1
        }
        return result
    }

    /// `--json`, `-j`, `--json=MODE` or `--json MODE`: the mode (nil when bare) and how many words it took.
    private static func jsonOption(_ word: String, next: String?) -> (mode: String?, consumed: Int)? {
        if word == "-j" { return (nil, 1) }
        if word.hasPrefix("--json=") { return (String(word.dropFirst("--json=".count)), 1) }
        guard word == "--json" else { return nil }
        if let next, JSONMode(rawValue: next) != nil { return (next, 2) }
        return (nil, 1)
    }

    /// A bare `--json` means what networkctl's `-j` does: pretty on a terminal, one line when piped.
    private static func jsonArgument(_ mode: String?, terminal: Bool) -> String {
        "--json=" + (mode ?? (terminal ? JSONMode.pretty : JSONMode.short).rawValue)
    }
}
