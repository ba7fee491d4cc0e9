// SPDX-License-Identifier: Apache-2.0

/// `pathctl --generate-completion-script fish`: one `complete` line per verb and option from the verbs' tables,
/// calling pathctl back for interfaces and network keys.
enum FishCompletion {
    static func script(_ verbs: [VerbSpec]) -> String {
        let names = ShellWords.verbNames(verbs).joined(separator: " ")
        var lines = [
            "# fish completion for pathctl, written by `pathctl --generate-completion-script fish`.",
            "",
            "# The verb on the command line, if any.",
            "function __pathctl_verb",
            "    for word in (commandline -opc)[2..-1]",
            "        if contains -- $word \(names)",
            "            echo $word",
            "            return 0",
            "        end",
            "    end",
            "    return 1",
            "end",
            "",
            "function __pathctl_using",
            "    set -l verb (__pathctl_verb)",
            "    test \"$verb\" = \"$argv[1]\"",
            "end",
            "",
            "# Whether the word being completed is argument $argv[2] (from 0) of verb $argv[1].",
            "function __pathctl_argument",
            "    __pathctl_using $argv[1]; or return 1",
            "    set -l words (commandline -opc)",
            "    set -l index (contains -i -- $argv[1] $words)",
            "    set -l count 0",
            "    for word in $words[(math $index + 1)..-1]",
            "        string match -q -- '-*' $word; or set count (math $count + 1)",
            "    end",
            "    test $count -eq $argv[2]",
            "end",
            "",
            "# Asks pathctl for the candidates: ---completion VERB -- ARGUMENT WORD-INDEX CURSOR-INDEX WORDS...",
            "function __pathctl_call",
            "    set -l words (commandline -opc) (commandline -ct)",
            "    command pathctl $argv (math (count $words) - 1) (string length -- (commandline -ct)) $words 2>/dev/null",
            "end",
            "",
            "complete -c pathctl -f",
            "complete -c pathctl -n 'not __pathctl_verb' -l version -d 'Show the version.'",
            "complete -c pathctl -n 'not __pathctl_verb' -s h -l help -d 'Show help information.'",
        ]
        for option in ConnectionOptions.specs {
            lines.append(line(option, verb: nil, condition: "not __pathctl_verb"))
        }
        for verb in verbs {
            lines.append(
                "complete -c pathctl -n 'not __pathctl_verb' -a \(verb.name) -d \(quoted(verb.abstract))")
        }
        lines.append("complete -c pathctl -n 'not __pathctl_verb' -a help -d 'Show subcommand help information.'")
        lines.append("complete -c pathctl -n '__pathctl_using help' -a \(quoted(names))")
        for verb in verbs {
            let condition = "__pathctl_using \(verb.name)"
            for option in verb.visibleOptions { lines.append(line(option, verb: verb, condition: condition)) }
            for (index, argument) in verb.arguments.enumerated() where argument.completion != .none {
                let condition =
                    argument.isPassthrough ? condition : "__pathctl_argument \(verb.name) \(index)"
                let values = self.values(argument.completion, verb, "positional@\(index)")
                lines.append("complete -c pathctl -n \(quoted(condition)) \(values)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func line(_ option: OptionSpec, verb: VerbSpec?, condition: String) -> String {
        var words = ["complete -c pathctl -n \(quoted(condition))"]
        if let short = option.short { words.append("-s \(short)") }
        words.append("-l \(option.long)")
        if !option.isFlag {
            let completion = verb.map { values(option.completion, $0, ShellWords.argumentName(option)) }
            words.append(completion ?? values(option.completion, nil, ""))
        }
        words.append("-d \(quoted(ShellWords.summary(option.help)))")
        return words.joined(separator: " ")
    }

    /// The flags saying what a value completes to.
    private static func values(_ kind: CompletionKind, _ verb: VerbSpec?, _ argument: String) -> String {
        switch kind {
        case .none: return "-x"
        case .file: return "-r -F"
        case .command: return "-x -a '(__fish_complete_command)'"
        case .values(let values): return "-x -a \(quoted(values.joined(separator: " ")))"
        case .interface, .networkKey, .networkKeyOrInterface:
            guard let verb else { return "-x" }
            return "-x -a \(quoted("(__pathctl_call \(ShellWords.callback(verb, argument)))"))"
        }
    }

    /// A fish single-quoted string: backslashes and quotes escaped.
    static func quoted(_ text: String) -> String {
        var result = "'"
        for character in text {
            if character == "\\" || character == "'" { result.append("\\") }
            result.append(character)
        }
        return result + "'"
    }
}
