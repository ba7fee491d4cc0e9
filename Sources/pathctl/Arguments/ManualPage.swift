// SPDX-License-Identifier: Apache-2.0

/// pathctl(1) in mdoc, from the verbs' tables (`pathctl --generate-manual`), in the shape swift-argument-parser's
/// generate-manual gave it: scripts/finish-manual then replaces its EXIT STATUS section with
/// docs/man/pathctl.1.exit. The date is the packaging's: `--generate-manual DATE` (mdoc's `.Dd`).
enum ManualPage {
    static func render(_ verbs: [VerbSpec], abstract: String, discussion: String, date: String) -> String {
        var lines = [
            #".\" Written by pathctl --generate-manual, from the verbs' own tables."#,
            ".Dd \(date)", ".Dt PATHCTL 1", ".Os", ".Sh NAME", ".Nm pathctl", ".Nd \(quoted(abstract))",
            ".Sh SYNOPSIS", ".Nm", ".Ar subcommand", ".Op Fl -version", ".Op Fl -help", ".Sh DESCRIPTION",
        ]
        lines += text(discussion)
        lines += [".Bl -tag -width 6n"] + standard
        for verb in verbs {
            lines += [".It Em \(verb.name)"] + text(verb.abstract)
            if !verb.discussion.isEmpty { lines += [".Pp"] + text(verb.discussion) }
            lines.append(".Bl -tag -width 6n")
            for argument in verb.arguments {
                lines += [".It Ar \(argument.name)\(argument.isPassthrough ? "..." : "")"] + text(argument.help)
            }
            for option in verb.visibleOptions {
                lines += [item(option)] + text(option.help)
            }
            lines += standard + [".El"]
        }
        lines += [
            ".It Em help", "Show subcommand help information.", ".Bl -tag -width 6n", ".It Ar subcommands...", ".El",
            ".El", #".Sh "EXIT STATUS""#, ".Ex -std", "",
        ]
        return lines.joined(separator: "\n")
    }

    private static let standard = [
        ".It Fl -version", "Show the version.", ".It Fl h , -help", "Show help information.",
    ]

    /// `.It Fl s , -since Ar TIME`.
    private static func item(_ option: OptionSpec) -> String {
        var item = ".It Fl " + (option.short.map { "\($0) , -" } ?? "-") + option.long
        if let value = option.valueName { item += " Ar " + value + (option.isRepeatable ? "..." : "") }
        return item
    }

    /// Text lines for mdoc: paragraphs apart, a backslash doubled, and a line that would start with a period or
    /// an apostrophe (a request to roff) escaped.
    private static func text(_ text: String) -> [String] {
        text.split(separator: "\n").enumerated().flatMap { index, paragraph -> [String] in
            var line = ""
            for character in paragraph { line += character == "\\" ? "\\e" : String(character) }
            if line.hasPrefix(".") || line.hasPrefix("'") { line = "\\&" + line }
            return index == 0 ? [line] : [".Pp", line]
        }
    }

    /// `"text"` for a macro's argument, quotes inside doubled.
    private static func quoted(_ text: String) -> String {
        "\"" + text.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }
}
