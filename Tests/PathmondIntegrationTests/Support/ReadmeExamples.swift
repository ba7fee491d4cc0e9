// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The fenced examples of README.md, as a reader copies them.
struct ReadmeExamples {
    /// The repository's root: this file is Tests/PathmondIntegrationTests/Support/ReadmeExamples.swift.
    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    let markdown: String

    init() throws {
        markdown = try String(contentsOf: Self.root.appending(path: "README.md"), encoding: .utf8)
    }

    /// The bodies of every block fenced with ```language, in order.
    func blocks(_ language: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```\(language)" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// A Swift block as a file of its own: its imports on top, the rest inside a function, so blocks that each
    /// declare a `monitor` compile side by side.
    static func swiftFile(_ block: String, number: Int) -> String {
        let lines = block.split(separator: "\n", omittingEmptySubsequences: false)
        let imports = lines.filter { $0.hasPrefix("import ") }
        let body = lines.filter { !$0.hasPrefix("import ") }
        return imports.joined(separator: "\n") + "\n\nfunc readmeExample\(number)() async throws {\n"
            + body.map { "    " + $0 }.joined(separator: "\n") + "\n}\n"
    }
}
