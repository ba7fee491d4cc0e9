// SPDX-License-Identifier: Apache-2.0

/// `--help`'s OPTIONS section from an option table, in swift-argument-parser's layout, which pathmond's programs
/// printed before they parsed with getopt_long: each option's name and value at 2 columns, its help from column 26
/// (on the next line when the name is longer), words wrapped before column 80.
package enum CommandLineHelp {
    static let indent = 2
    static let helpColumn = 26
    static let width = 79

    /// The visible options of `options`, then `--version` and `-h, --help`, each with its help and the default
    /// `defaults` holds.
    package static func options<Line>(_ options: [CommandLineOption<Line>], defaults: Line) -> String {
        var entries: [(label: String, help: String)] = options.filter { !$0.hidden }.map { option in
            let label = "--" + option.name + (option.takesValue ? " <\(option.name)>" : "")
            let help = [option.help, option.shownDefault(defaults)].compactMap { $0 }.joined(separator: " ")
            return (label, help)
        }
        entries += [("--version", "Show the version."), ("-h, --help", "Show help information.")]
        return entries.map(entry).joined()
    }

    /// One option's lines, each ending in a newline.
    private static func entry(_ label: String, _ help: String) -> String {
        let margin = String(repeating: " ", count: helpColumn)
        let lines = wrap(help, width: width - helpColumn)
        let first = String(repeating: " ", count: indent) + label
        var text: String
        if first.count < helpColumn {
            text = first + String(repeating: " ", count: helpColumn - first.count) + (lines.first ?? "") + "\n"
        } else {
            text = first + "\n" + (lines.first.map { margin + $0 + "\n" } ?? "")
        }
        for line in lines.dropFirst() { text += margin + line + "\n" }
        return text
    }

    /// Words in lines of at most `width` characters (a longer word alone on its line).
    package static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = String(word)
            } else {
                line += (line.isEmpty ? "" : " ") + word
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
