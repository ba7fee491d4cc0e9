// SPDX-License-Identifier: Apache-2.0

/// `pathctl --generate-completion-script bash`: a script that finds the verb, then offers its options, their values
/// and its arguments from the verbs' tables, calling pathctl back for interfaces and network keys.
enum BashCompletion {
    static func script(_ verbs: [VerbSpec]) -> String {
        let globals = ConnectionOptions.specs.map { "--" + $0.long } + ["--version", "-h", "--help"]
        let names = ShellWords.verbNames(verbs).joined(separator: " ")
        var lines = [
            "# bash completion for pathctl, written by `pathctl --generate-completion-script bash`.",
            "_pathctl() {",
            "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}",
            "    local verbs=\(ShellWords.quoted(names)) verb='' word skip=false ended=false positional=0 i",
            "    COMPREPLY=()",
            "    for ((i = 1; i < COMP_CWORD; i++)); do",
            "        word=${COMP_WORDS[i]}",
            "        if $skip; then skip=false; continue; fi",
            "        if [[ -z $verb ]]; then",
            "            if [[ $word == --socket ]]; then skip=true",
            "            elif [[ \" $verbs \" == *\" $word \"* ]]; then verb=$word; fi",
            "            continue",
            "        fi",
            "        if $ended || [[ $word != -* ]]; then ((positional++)); continue; fi",
            "        if [[ $word == -- ]]; then ended=true",
            "        elif [[ \" $(_pathctl_takes_value \"$verb\") \" == *\" $word \"* ]]; then skip=true; fi",
            "    done",
            "    if [[ -z $verb || $verb == help ]]; then",
            "        if [[ -z $verb && $prev == --socket ]]; then COMPREPLY=($(compgen -f -- \"$cur\")); return; fi",
            "        if [[ -z $verb && $cur == -* ]]; then",
            "            COMPREPLY=($(compgen -W \(ShellWords.quoted(globals.joined(separator: " "))) -- \"$cur\"))",
            "        else",
            "            COMPREPLY=($(compgen -W \"$verbs\" -- \"$cur\"))",
            "        fi",
            "        return",
            "    fi",
            "    if ! $ended && _pathctl_value \"$verb\" \"$prev\"; then return; fi",
            "    if ! $ended && [[ $cur == -* ]]; then",
            "        COMPREPLY=($(compgen -W \"$(_pathctl_options \"$verb\")\" -- \"$cur\"))",
            "        return",
            "    fi",
            "    _pathctl_argument \"$verb\" \"$positional\"",
            "}",
            "",
            "# Asks pathctl for the candidates: ---completion VERB -- ARGUMENT WORD-INDEX CURSOR-INDEX WORDS...",
            "_pathctl_call() {",
            "    local IFS=$'\\n'",
            "    COMPREPLY=($(\"${COMP_WORDS[0]}\" \"$@\" \"$COMP_CWORD\" \"${#cur}\" \"${COMP_WORDS[@]}\" 2>/dev/null))",
            "}",
            "",
        ]
        lines += table("_pathctl_options", verbs) { ShellWords.optionWords($0).joined(separator: " ") }
        lines += table("_pathctl_takes_value", verbs) { verb in
            verb.visibleOptions.filter { !$0.isFlag }.flatMap { ["--" + $0.long] + ($0.short.map { ["-\($0)"] } ?? []) }
                .joined(separator: " ")
        }
        lines += [
            "# Completes the value of option $2 of verb $1; fails for an option that takes none.", "_pathctl_value() {",
        ]
        lines += ["    case \"$1 $2\" in"]
        for verb in verbs {
            for option in verb.visibleOptions where !option.isFlag {
                let patterns = (["--" + option.long] + (option.short.map { ["-\($0)"] } ?? [])).map {
                    ShellWords.quoted("\(verb.name) \($0)")
                }
                lines.append(
                    "    \(patterns.joined(separator: "|"))) \(action(option.completion, verb, "--" + option.long)) ;;")
            }
        }
        lines += ["    *) return 1 ;;", "    esac", "}", ""]
        lines += ["# Completes argument $2 (from 0) of verb $1.", "_pathctl_argument() {", "    case \"$1 $2\" in"]
        for verb in verbs {
            for (index, argument) in verb.arguments.enumerated() where argument.completion != .none {
                let pattern = argument.isPassthrough ? "'\(verb.name) '*" : ShellWords.quoted("\(verb.name) \(index)")
                lines.append("    \(pattern)) \(action(argument.completion, verb, "positional@\(index)")) ;;")
            }
        }
        lines += ["    esac", "}", "", "complete -F _pathctl pathctl", ""]
        return lines.joined(separator: "\n")
    }

    /// A function answering one line per verb.
    private static func table(_ name: String, _ verbs: [VerbSpec], _ value: (VerbSpec) -> String) -> [String] {
        ["\(name)() {", "    case $1 in"] + verbs.map { "    \($0.name)) echo \(ShellWords.quoted(value($0))) ;;" }
            + ["    esac", "}", ""]
    }

    /// What bash runs to fill COMPREPLY for a value of `kind`.
    private static func action(_ kind: CompletionKind, _ verb: VerbSpec, _ argument: String) -> String {
        switch kind {
        case .none: return ":"
        case .file: return "COMPREPLY=($(compgen -f -- \"$cur\"))"
        case .command: return "COMPREPLY=($(compgen -c -- \"$cur\"))"
        case .values(let values):
            return "COMPREPLY=($(compgen -W \(ShellWords.quoted(values.joined(separator: " "))) -- \"$cur\"))"
        case .interface, .networkKey, .networkKeyOrInterface:
            return "_pathctl_call \(ShellWords.callback(verb, argument))"
        }
    }
}
