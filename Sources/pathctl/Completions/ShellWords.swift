// SPDX-License-Identifier: Apache-2.0

/// What the three completion scripts share: the words a shell offers, and quoting.
enum ShellWords {
    /// The verbs a shell offers after `pathctl`, `help` included.
    static func verbNames(_ verbs: [VerbSpec]) -> [String] { verbs.map(\.name) + ["help"] }

    /// Every spelling of the options a verb takes, as offered after a dash.
    static func optionWords(_ verb: VerbSpec) -> [String] {
        verb.visibleOptions.flatMap { option in ["--" + option.long] + (option.short.map { ["-\($0)"] } ?? []) }
            + ["--version", "-h", "--help"]
    }

    /// `text` in single quotes for sh, bash and zsh.
    static func quoted(_ text: String) -> String {
        "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: #"'\''"#) + "'"
    }

    /// The callback's fixed words: `---completion VERB -- ARGUMENT`.
    static func callback(_ verb: VerbSpec, _ argument: String) -> String { "---completion \(verb.name) -- \(argument)" }

    /// The callback's ARGUMENT for an option.
    static func argumentName(_ option: OptionSpec) -> String { "--" + option.long }

    /// The first line a help text gives (help in a shell's menu is one line).
    static func summary(_ help: String) -> String {
        String(help.prefix { $0 != "\n" })
    }
}
