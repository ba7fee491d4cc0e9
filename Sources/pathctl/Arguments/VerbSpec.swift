// SPDX-License-Identifier: Apache-2.0

/// A verb's table: its name, its help text, its options and arguments. One per verb, declared beside the code that
/// runs it; nothing about a verb's command line is written anywhere else.
struct VerbSpec: Sendable {
    let name: String
    let abstract: String
    var discussion: String = ""
    var options: [OptionSpec] = []
    var arguments: [ArgumentSpec] = []

    /// The options help, man page and completions show (hidden ones left out).
    var visibleOptions: [OptionSpec] { options.filter { !$0.isHidden } }

    func option(long: String) -> OptionSpec? { options.first { $0.long == long } }
    func option(short: Character) -> OptionSpec? { options.first { $0.short == short } }
}

/// A verb of pathctl: built from its parsed command line (refusing what it cannot run with a usage error), then
/// run. A failure that ends pathctl with a status throws `ExitCode`.
protocol Verb {
    static var spec: VerbSpec { get }
    init(_ arguments: ParsedArguments) throws(UsageError)
    func run() throws(ExitCode)
}

/// A command line pathctl cannot run: printed after "pathctl: ", exit 64 (EX_USAGE).
struct UsageError: Error, Equatable, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

/// How pathctl ends: the status it exits with. Thrown by verbs; `main` exits with it.
struct ExitCode: Error, Equatable {
    let rawValue: Int32
    init(_ rawValue: Int32) { self.rawValue = rawValue }

    static let success = ExitCode(0)
    static let failure = ExitCode(1)
    /// EX_USAGE: a command line pathctl cannot run.
    static let validationFailure = ExitCode(64)
}
