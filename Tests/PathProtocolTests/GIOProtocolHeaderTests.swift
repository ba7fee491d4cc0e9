// SPDX-License-Identifier: Apache-2.0
import PathProtocol
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The GIO module is C, built without Swift (by SwiftPM, by gcc under AddressSanitizer, by packaging), so it
/// cannot read the method table; it includes Sources/PathmondGIO/pathmond-protocol.h, which this test renders from
/// the table and holds the checked-in file to, byte for byte. A whole-file comparison cannot be fooled by the
/// layout of C source the way a test that searched varlink-stream.c for numbers could; with
/// PATHMOND_REGENERATE_HEADERS=1 the test writes the file instead (and still fails, so that a run that rewrote it
/// is never taken for a pass).
/// libpathmond, the C client library, includes the same file under Sources/libpathmond: both copies are held to it.
@Suite struct GIOProtocolHeaderTests {
    static let sources = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "Sources")
    static let headerPaths = [
        sources.appending(path: "PathmondGIO/pathmond-protocol.h"),
        sources.appending(path: "libpathmond/pathmond-protocol.h"),
    ]

    /// "WatchPath" as a C macro's part: WATCH_PATH.
    static func macroName(_ method: String) -> String {
        var name = ""
        for character in method {
            if character.isUppercase, !name.isEmpty { name += "_" }
            name += character.uppercased()
        }
        return name
    }

    /// The header's text: each io.pathmond method's name, whether it streams, and its size limits.
    static func render() -> String {
        var lines = [
            "/* SPDX-License-Identifier: LGPL-2.1-or-later */",
            "/* Generated from PathProtocol's method table (Sources/PathProtocol/MethodTable.swift) by",
            " * Tests/PathProtocolTests/GIOProtocolHeaderTests.swift, which fails while this file differs from the table;",
            " * PATHMOND_REGENERATE_HEADERS=1 makes it rewrite the file. Do not edit by hand. */",
            "#ifndef PATHMOND_PROTOCOL_H",
            "#define PATHMOND_PROTOCOL_H",
            "",
        ]
        for method in Methods.all where method.interface == VarlinkInterfaces.pathmond {
            let macro = "PATHMOND_METHOD_" + macroName(method.methodName)
            let streaming: String
            switch method.streaming {
            case .never: streaming = "0"
            case .optional, .required: streaming = "1"
            }
            lines += [
                "#define \(macro) \"\(method.name)\"",
                "#define \(macro)_STREAMS \(streaming)",
                "#define \(macro)_MORE_REQUIRED \(method.streaming == .required ? "1" : "0")",
                "#define \(macro)_MAXIMUM_CALL_SIZE \(method.maximumCallSize)",
                "#define \(macro)_MAXIMUM_REPLY_SIZE \(method.maximumReplySize)",
                "",
            ]
        }
        lines += ["#endif", ""]
        return lines.joined(separator: "\n")
    }

    @Test(arguments: headerPaths) func theCheckedInHeaderIsTheOneTheTableMakes(_ headerPath: URL) throws {
        let expected = Self.render()
        if ProcessInfo.processInfo.environment["PATHMOND_REGENERATE_HEADERS"] == "1" {
            try Data(expected.utf8).write(to: headerPath)
            Issue.record("rewrote \(headerPath.path); run again without PATHMOND_REGENERATE_HEADERS")
            return
        }
        let checkedIn = try String(decoding: Data(contentsOf: headerPath), as: UTF8.self)
        #expect(checkedIn == expected, "\(headerPath.path) is stale; run with PATHMOND_REGENERATE_HEADERS=1")
    }

    @Test func macroNamesAreUpperSnakeCase() {
        #expect(Self.macroName("WatchPath") == "WATCH_PATH")
        #expect(Self.macroName("GetHistory") == "GET_HISTORY")
    }

    /// The module's one call streams, and it must be ready for the largest reply that call can get.
    @Test func theHeaderCarriesWhatTheModuleReliesOn() {
        let header = Self.render()
        #expect(header.contains("#define PATHMOND_METHOD_WATCH_PATH \"io.pathmond.WatchPath\"\n"))
        #expect(header.contains("#define PATHMOND_METHOD_WATCH_PATH_STREAMS 1\n"))
        #expect(
            header.contains("#define PATHMOND_METHOD_WATCH_PATH_MAXIMUM_REPLY_SIZE \(VarlinkCodec.maximumReplySize)\n"))
    }
}
