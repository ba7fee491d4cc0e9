// SPDX-License-Identifier: Apache-2.0

/// `pathctl --generate-completion-script zsh`: `_arguments` specs from the verbs' tables, one function per verb,
/// calling pathctl back for interfaces and network keys.
enum ZshCompletion {
    static func script(_ verbs: [VerbSpec]) -> String {
        var lines = [
            "#compdef pathctl",
            "# zsh completion for pathctl, written by `pathctl --generate-completion-script zsh`.",
            "",
            "_pathctl() {",
            "    local -a verbs=(",
        ]
        lines += verbs.map { "        " + ShellWords.quoted("\($0.name):\(escapedMessage($0.abstract))") }
        lines += [
            "        'help:Show subcommand help information.'",
            "    )",
            "    local context state state_descr line",
            "    typeset -A opt_args",
            "    _arguments -C \\",
        ]
        lines += (ConnectionOptions.specs.map(spec) + standard).map { "        \($0) \\" }
        lines += [
            "        '1: :->verb' \\",
            "        '*:: :->arguments' && return",
            "    case $state in",
            "    verb) _describe -t verbs 'pathctl verb' verbs ;;",
            "    arguments)",
            "        case $line[1] in",
        ]
        lines += verbs.map { "        \($0.name)) _pathctl_\(functionName($0)) ;;" }
        lines += [
            "        help) _describe -t verbs 'pathctl verb' verbs ;;",
            "        esac",
            "        ;;",
            "    esac",
            "}",
            "",
            "# Asks pathctl for the candidates: ---completion VERB -- ARGUMENT WORD-INDEX CURSOR-INDEX WORDS... (the",
            "# words from pathctl on: within a verb, zsh's $words start at the verb).",
            "_pathctl_call() {",
            "    local -a candidates",
            "    candidates=(\"${(@f)$(command pathctl \"$@\" \"$CURRENT\" \"${#PREFIX}\" pathctl \"${words[@]}\" 2>/dev/null)}\")",
            "    compadd -a candidates",
            "}",
            "",
        ]
        for verb in verbs {
            lines += ["_pathctl_\(functionName(verb))() {", "    _arguments \\"]
            var specs = verb.visibleOptions.map { spec($0, verb) } + standard
            for (index, argument) in verb.arguments.enumerated() {
                let message = escapedMessage(argument.name)
                let action = self.action(argument.completion, verb, "positional@\(index)")
                if argument.isPassthrough {
                    specs.append(ShellWords.quoted("*::\(message):_normal"))
                } else {
                    specs.append(ShellWords.quoted("\(argument.isOptional ? "::" : ":")\(message):\(action)"))
                }
            }
            lines += specs.enumerated().map { "        \($1)\($0 == specs.count - 1 ? "" : " \\")" }
            lines += ["}", ""]
        }
        lines += ["_pathctl \"$@\"", ""]
        return lines.joined(separator: "\n")
    }

    private static let standard = [
        "'(- *)--version[Show the version.]'", "'(- *)'{-h,--help}'[Show help information.]'",
    ]

    /// One `_arguments` spec: `'--name[help]:value:action'`, `{-n,--name}` for both spellings, `*` if repeatable.
    private static func spec(_ option: OptionSpec) -> String { spec(option, nil) }

    private static func spec(_ option: OptionSpec, _ verb: VerbSpec?) -> String {
        var tail = "[\(escapedHelp(ShellWords.summary(option.help)))]"
        if !option.isFlag {
            let argument = ShellWords.argumentName(option)
            let action = verb.map { self.action(option.completion, $0, argument) } ?? plainAction(option.completion)
            tail += ":\(escapedMessage(option.valueName ?? option.long)):\(action)"
        }
        let repeated = option.isRepeatable ? "*" : ""
        // A value after `=` or as the next word (`--since=-1h`, `--since -1h`); a short option's also attached.
        let long = "--" + option.long + (option.isFlag ? "" : "=")
        guard let short = option.short else { return ShellWords.quoted("\(repeated)\(long)\(tail)") }
        let shortSpelling = "-\(short)" + (option.isFlag ? "" : "+")
        return "'(-\(short) --\(option.long))'\(repeated.isEmpty ? "" : "'*'"){\(shortSpelling),\(long)}"
            + ShellWords.quoted(tail)
    }

    private static func action(_ kind: CompletionKind, _ verb: VerbSpec, _ argument: String) -> String {
        kind.callsBack ? "{_pathctl_call \(ShellWords.callback(verb, argument))}" : plainAction(kind)
    }

    private static func plainAction(_ kind: CompletionKind) -> String {
        switch kind {
        case .none: return " "
        case .file: return "_files"
        case .command: return "_command_names"
        case .values(let values): return "(\(values.joined(separator: " ")))"
        case .interface, .networkKey, .networkKeyOrInterface: return " "
        }
    }

    /// zsh function names take no dash.
    private static func functionName(_ verb: VerbSpec) -> String {
        String(verb.name.map { $0 == "-" ? "_" : $0 })
    }

    /// Help inside `[...]`: brackets escaped.
    private static func escapedHelp(_ text: String) -> String {
        var result = ""
        for character in text {
            if character == "[" || character == "]" || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result
    }

    /// A message or verb description between colons: colons escaped.
    private static func escapedMessage(_ text: String) -> String {
        var result = ""
        for character in text {
            if character == ":" || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result
    }
}
