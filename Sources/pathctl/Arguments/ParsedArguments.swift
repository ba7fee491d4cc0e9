// SPDX-License-Identifier: Apache-2.0
import PathProtocol

/// A verb's command line once parsed against its table: what each option was given, and the positional words.
struct ParsedArguments: Equatable {
    /// Each option's values in the order given, by long name; a flag has one empty value per occurrence.
    var options: [String: [String]] = [:]
    var positionals: [String] = []
    /// `-h` or `--help` stood among the options (not after `--`, not in a command `exec` runs).
    var wantsHelp = false
    /// `--version` did.
    var wantsVersion = false

    /// Whether the flag was given.
    func flag(_ long: String) -> Bool { options[long] != nil }

    /// The option's value; given twice, the last one counts.
    func value(_ long: String) -> String? { options[long]?.last }

    /// Every value of a repeatable option.
    func values(_ long: String) -> [String] { options[long] ?? [] }

    func argument(_ index: Int) -> String? { index < positionals.count ? positionals[index] : nil }

    /// The option's value read by `convert`; a value it cannot read is a usage error naming the option and what
    /// it takes (`expected`).
    func value<Value>(
        _ long: String, expected: String, _ convert: (String) -> Value?
    ) throws(UsageError) -> Value? {
        guard let text = value(long) else { return nil }
        guard let converted = convert(text) else {
            throw UsageError("--\(long) takes \(expected), not '\(HumanText.escaped(text))'")
        }
        return converted
    }

    /// Every value of a repeatable option, each read by `convert`.
    func values<Value>(
        _ long: String, expected: String, _ convert: (String) -> Value?
    ) throws(UsageError) -> [Value] {
        var result: [Value] = []
        for text in values(long) {
            guard let converted = convert(text) else {
                throw UsageError("--\(long) takes \(expected), not '\(HumanText.escaped(text))'")
            }
            result.append(converted)
        }
        return result
    }
}
