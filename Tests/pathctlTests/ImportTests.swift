// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// pathctl links no Foundation (issue 41: it was a third of the binary that every gated unit start loads): no source
/// file of it may import Foundation or FoundationEssentials, nor swift-argument-parser. scripts/package checks the
/// binary's symbols as well.
@Suite struct ImportTests {
    static let sources = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "Sources/pathctl")

    @Test func noSourceImportsFoundationOrArgumentParser() throws {
        let files = try #require(FileManager.default.enumerator(atPath: Self.sources.path)).compactMap {
            ($0 as? String).flatMap { $0.hasSuffix(".swift") ? $0 : nil }
        }
        #expect(files.count > 20, "\(Self.sources.path)")
        for file in files {
            let text = try String(contentsOf: Self.sources.appending(path: file), encoding: .utf8)
            for line in text.split(separator: "\n") where line.trimmingCharacters(in: .whitespaces).hasPrefix("import ")
            {
                #expect(!line.contains("Foundation") && !line.contains("ArgumentParser"), "\(file): \(line)")
            }
        }
    }
}
