// SPDX-License-Identifier: Apache-2.0

/// `pathctl --help` and `pathctl VERB --help`, from the verbs' tables, laid out as swift-argument-parser laid them
/// out before (OVERVIEW, USAGE, ARGUMENTS, a section per option group, OPTIONS), 80 columns wide.
enum HelpText {
    /// Lines of at most 79 columns, as swift-argument-parser wrapped them: an 80-column terminal never wraps again.
    static let width = 79
    /// Where an entry's text starts: a label longer than this puts the text on the next line.
    static let textColumn = 26

    /// The entries every verb also takes.
    static let standardEntries = [("--version", "Show the version."), ("-h, --help", "Show help information.")]

    static func root(_ verbs: [VerbSpec], defaultVerb: String, abstract: String, discussion: String) -> String {
        var lines = ["OVERVIEW: " + abstract, ""] + paragraphs(discussion) + ["USAGE: pathctl <subcommand>", ""]
        lines += ["OPTIONS:"] + standardEntries.flatMap { entry($0.0, $0.1) } + ["", "SUBCOMMANDS:"]
        for verb in verbs {
            lines += entry(verb.name == defaultVerb ? "\(verb.name) (default)" : verb.name, verb.abstract)
        }
        lines += ["", "  See 'pathctl help <subcommand>' for detailed help."]
        return lines.joined(separator: "\n")
    }

    static func verb(_ spec: VerbSpec) -> String {
        var lines = wrap("OVERVIEW: " + spec.abstract, indent: 0) + [""] + paragraphs(spec.discussion)
        lines += ["USAGE: " + usage(spec), ""]
        if !spec.arguments.isEmpty {
            lines += ["ARGUMENTS:"] + spec.arguments.flatMap { entry("<\($0.name)>", $0.help) } + [""]
        }
        let options = spec.visibleOptions
        var sections: [String] = []
        for option in options {
            if let section = option.section, !sections.contains(section) { sections.append(section) }
        }
        for section in sections {
            lines += [section.uppercased() + ":"]
            lines += options.filter { $0.section == section }.flatMap(optionEntry) + [""]
        }
        lines += ["OPTIONS:"] + options.filter { $0.section == nil }.flatMap(optionEntry)
        lines += standardEntries.flatMap { entry($0.0, $0.1) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `pathctl name <target> [<name>] [--remove] ...`: the arguments, every visible option, a command to run last;
    /// `[<options>]` stands for the optional ones where the whole line would pass 280 columns (`check`, `wait`).
    static func usage(_ spec: VerbSpec) -> String {
        func word(_ option: OptionSpec) -> String {
            var word = "--" + option.long
            if !option.isFlag { word += " " + CommandLineParser.valueText(option) }
            if option.isRepeatable { word += " ..." }
            return option.isRequired ? word : "[\(word)]"
        }
        func word(_ argument: ArgumentSpec) -> String {
            if argument.isPassthrough { return "[<\(argument.name)> ...]" }
            return argument.isOptional ? "[<\(argument.name)>]" : "<\(argument.name)>"
        }
        let arguments = spec.arguments.filter { !$0.isPassthrough }.map(word)
        let command = spec.arguments.filter(\.isPassthrough).map(word)
        let full = ["pathctl", spec.name] + arguments + spec.visibleOptions.map(word) + command
        guard full.joined(separator: " ").count > 280 else { return full.joined(separator: " ") }
        let required = spec.visibleOptions.filter(\.isRequired).map(word)
        return (["pathctl", spec.name] + arguments + ["[<options>]"] + required + command).joined(separator: " ")
    }

    /// An option's entry: its spellings and value, its help and what it takes.
    static func optionEntry(_ option: OptionSpec) -> [String] {
        var label = option.spelling
        if !option.isFlag { label += " " + CommandLineParser.valueText(option) }
        var notes: [String] = []
        if option.listsValues, case .values(let values) = option.completion {
            notes.append("values: " + values.joined(separator: ", "))
        }
        if let defaultText = option.defaultText { notes.append("default: " + defaultText) }
        return entry(label, notes.isEmpty ? option.help : option.help + " (" + notes.joined(separator: "; ") + ")")
    }

    /// `  label   text`, the text wrapped at `textColumn`; a long label has its text on the lines below.
    static func entry(_ label: String, _ text: String) -> [String] {
        let body = wrap(text, indent: textColumn)
        let head = "  " + label
        guard head.count < textColumn else { return [head] + body }
        let padded = head + String(repeating: " ", count: textColumn - head.count)
        // The first line's text as a String of its own: Swift 6.2.3 (Debian's swiftlang) types the one-expression
        // form's dropFirst() as the String's, not the array's.
        let firstText = String(body[0].dropFirst(textColumn))
        return [padded + firstText] + body.dropFirst()
    }

    /// Each paragraph of `text` wrapped, followed by an empty line; nothing for no text.
    static func paragraphs(_ text: String) -> [String] {
        text.split(separator: "\n").flatMap { wrap(String($0), indent: 0) + [""] }
    }

    /// `text` in lines of at most `width` columns, each indented by `indent` spaces; a word longer than a line
    /// stands alone.
    static func wrap(_ text: String, indent: Int, width: Int = HelpText.width) -> [String] {
        let margin = String(repeating: " ", count: indent)
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && indent + line.count + 1 + word.count > width {
                lines.append(margin + line)
                line = ""
            }
            line += line.isEmpty ? String(word) : " " + word
        }
        lines.append(margin + line)
        return lines
    }
}
