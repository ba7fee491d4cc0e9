// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The stable ABI: the linker version script (what libpathmond.so.0 exports, at LIBPATHMOND_0) names exactly the
/// functions the public header declares. A function added to the header but not the script would be hidden from
/// every program; one in the script but gone from the header would break a program built against an older one.
@Suite struct SymbolTests {
    static let source = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "Sources/libpathmond")

    static func names(in text: String, after prefix: String, until end: Character) -> Set<String> {
        var names: Set<String> = []
        // A preprocessor line (PATHMOND_PUBLIC's own #define) declares nothing.
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let range = line.range(of: prefix) else { continue }
            let rest = line[range.upperBound...]
            guard let stop = rest.firstIndex(of: end) else { continue }
            names.insert(String(rest[..<stop]).trimmingCharacters(in: .whitespaces))
        }
        return names
    }

    @Test func theVersionScriptExportsExactlyTheHeadersFunctions() throws {
        let header = try String(contentsOf: Self.source.appending(path: "include/pathmond.h"), encoding: .utf8)
        let script = try String(contentsOf: Self.source.appending(path: "libpathmond.sym"), encoding: .utf8)
        // Every declaration is one "PATHMOND_PUBLIC type name(" (continuation lines hold only parameters).
        let declared = Set(
            Self.names(in: header, after: "PATHMOND_PUBLIC ", until: "(").compactMap {
                $0.split(separator: " ").last.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "*")) }
            })
        let exported = Self.names(in: script, after: "    pathmond_", until: ";").map { "pathmond_" + $0 }
        #expect(declared.count > 40)
        #expect(declared == Set(exported))
    }
}
