// SPDX-License-Identifier: Apache-2.0

/// What the shell offers as the value of an option or argument when the user presses Tab.
enum CompletionKind: Equatable, Sendable {
    /// Nothing: free text (a name, a duration).
    case none
    /// Paths (sockets).
    case file
    /// One of these words.
    case values([String])
    /// Asks pathctl back (`---completion`): the interfaces of this network namespace.
    case interface
    /// Asks pathctl back: the network keys pathmond knows.
    case networkKey
    /// Asks pathctl back: a network key or an interface.
    case networkKeyOrInterface
    /// A command and its arguments (`pathctl exec -- CMD`).
    case command

    /// Whether the shell script calls pathctl back for the words.
    var callsBack: Bool { self == .interface || self == .networkKey || self == .networkKeyOrInterface }
}

/// One option of a verb, as its table declares it: the parser, the help, the man page and the completion scripts
/// all read this, so that what is documented is what is parsed.
struct OptionSpec: Sendable {
    /// The long name without its dashes (`socket` for `--socket`).
    let long: String
    let short: Character?
    /// The value's name in help (`<socket>`, `short|pretty|off`); nil for a flag.
    let valueName: String?
    let help: String
    /// The help section it is listed under (`CONDITIONS`); nil for the verb's plain OPTIONS.
    var section: String?
    var completion: CompletionKind
    /// May be given several times, each value kept (`--prohibit wifi --prohibit cellular`).
    var isRepeatable = false
    /// Must be given (`exec --while`).
    var isRequired = false
    /// Parsed but left out of help, man page and completions (the dispatcher's socket, for tests).
    var isHidden = false
    /// Shown as "(default: …)" in help.
    var defaultText: String?
    /// The values listed as "(values: …)" in help; the completion's words.
    var listsValues = false

    var isFlag: Bool { valueName == nil }

    /// `--name`, and `-n, --name` when it has a short form.
    var spelling: String { short.map { "-\($0), --\(long)" } ?? "--\(long)" }

    /// A flag: present or not.
    static func flag(_ long: String, short: Character? = nil, _ help: String) -> OptionSpec {
        OptionSpec(long: long, short: short, valueName: nil, help: help, completion: .none)
    }

    /// An option that takes a value, as the next word or after `=`.
    static func option(
        _ long: String, short: Character? = nil, value: String? = nil, _ help: String,
        completion: CompletionKind = .none
    ) -> OptionSpec {
        var spec = OptionSpec(long: long, short: short, valueName: value ?? long, help: help, completion: completion)
        if case .values = completion { spec.listsValues = true }
        return spec
    }

    /// Options listed together under `section` in help.
    static func section(_ section: String, _ options: [OptionSpec]) -> [OptionSpec] {
        options.map { $0.inSection(section) }
    }

    /// The same option listed under `section` in help.
    func inSection(_ section: String?) -> OptionSpec {
        var copy = self
        copy.section = section
        return copy
    }

    func with(_ change: (inout OptionSpec) -> Void) -> OptionSpec {
        var copy = self
        change(&copy)
        return copy
    }
}

/// One positional argument of a verb.
struct ArgumentSpec: Sendable {
    let name: String
    let help: String
    var isOptional = false
    var completion: CompletionKind = .none
    /// Takes every word from the first one on, options included (`exec`'s command).
    var isPassthrough = false
}
