// SPDX-License-Identifier: Apache-2.0
import PathProtocol

/// Parses a verb's words against its table, as getopt_long does but without its global state and permutation:
/// `--name value`, `--name=value`, `-n value`, `-nvalue`, flags clustered (`-qf`), options and arguments in any
/// order, `--` ending the options. An option's value is the next word whatever it looks like (`--since -1h`).
enum CommandLineParser {
    static func parse(_ words: [String], as spec: VerbSpec) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        let passthrough = spec.arguments.firstIndex { $0.isPassthrough }
        var index = 0
        var optionsEnded = false
        while index < words.count {
            let word = words[index]
            index += 1
            if let passthrough, parsed.positionals.count >= passthrough, optionsEnded || !word.hasPrefix("-") {
                // A command to run: its words are its own, options included.
                parsed.positionals += words[(index - 1)...]
                break
            }
            if optionsEnded || word == "-" || !word.hasPrefix("-") {
                parsed.positionals.append(word)
                continue
            }
            if word == "--" {
                optionsEnded = true
                continue
            }
            if word.hasPrefix("--") {
                try parseLong(word, words, &index, spec, into: &parsed)
            } else {
                try parseShort(word, words, &index, spec, into: &parsed)
            }
        }
        // Help asked for needs no complete command line.
        if !parsed.wantsHelp && !parsed.wantsVersion { try check(parsed, against: spec) }
        return parsed
    }

    /// `--name`, `--name=value` or `--name value`.
    private static func parseLong(
        _ word: String, _ words: [String], _ index: inout Int, _ spec: VerbSpec, into parsed: inout ParsedArguments
    ) throws(UsageError) {
        let body = word.dropFirst(2)
        let name = String(body.prefix { $0 != "=" })
        let inline = body.firstIndex(of: "=").map { String(body[body.index(after: $0)...]) }
        if inline == nil && (name == "help" || name == "version") {
            if name == "help" { parsed.wantsHelp = true } else { parsed.wantsVersion = true }
            return
        }
        guard let option = spec.option(long: name) else {
            throw UsageError("unknown option '--\(HumanText.escaped(name))'")
        }
        if option.isFlag {
            guard inline == nil else { throw UsageError("--\(name) takes no value") }
            parsed.options[name, default: []].append("")
            return
        }
        if let inline {
            parsed.options[name, default: []].append(inline)
            return
        }
        guard index < words.count else { throw UsageError("--\(name) needs a value (\(valueText(option)))") }
        parsed.options[name, default: []].append(words[index])
        index += 1
    }

    /// `-q`, `-qf` (flags together), `-n 5` or `-n5`.
    private static func parseShort(
        _ word: String, _ words: [String], _ index: inout Int, _ spec: VerbSpec, into parsed: inout ParsedArguments
    ) throws(UsageError) {
        var characters = word.dropFirst()[...]
        while let character = characters.popFirst() {
            if character == "h" && spec.option(short: "h") == nil {
                parsed.wantsHelp = true
                continue
            }
            guard let option = spec.option(short: character) else {
                throw UsageError("unknown option '-\(HumanText.escaped(String(character)))'")
            }
            if option.isFlag {
                parsed.options[option.long, default: []].append("")
                continue
            }
            if !characters.isEmpty {
                parsed.options[option.long, default: []].append(String(characters))
                return
            }
            guard index < words.count else {
                throw UsageError("-\(character) (--\(option.long)) needs a value (\(valueText(option)))")
            }
            parsed.options[option.long, default: []].append(words[index])
            index += 1
        }
    }

    /// Arguments missing or too many, and required options absent.
    private static func check(_ parsed: ParsedArguments, against spec: VerbSpec) throws(UsageError) {
        for option in spec.options where option.isRequired && parsed.options[option.long] == nil {
            throw UsageError("missing --\(option.long) \(valueText(option))")
        }
        let hasPassthrough = spec.arguments.last?.isPassthrough == true
        if !hasPassthrough, parsed.positionals.count > spec.arguments.count {
            let extra = parsed.positionals[spec.arguments.count]
            throw UsageError("unexpected argument '\(HumanText.escaped(extra))'")
        }
        for (position, argument) in spec.arguments.enumerated()
        where !argument.isOptional && !argument.isPassthrough && position >= parsed.positionals.count {
            throw UsageError("missing <\(argument.name)>")
        }
    }

    /// `<socket>`, or the value list as help shows it (`<short|pretty|off>`).
    static func valueText(_ option: OptionSpec) -> String { "<\(option.valueName ?? option.long)>" }
}
