// SPDX-License-Identifier: Apache-2.0
import PathProtocol
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// docs/io.pathmond.varlink is the published protocol; the daemon serves the copy compiled into PathProtocol.
@Suite struct InterfaceDefinitionTests {
    @Test func documentedDefinitionMatchesTheServedOne() throws {
        let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let documented = try String(
            decoding: Data(contentsOf: root.appending(path: "docs/io.pathmond.varlink")), as: UTF8.self)
        #expect(documented == VarlinkInterfaces.pathmondDescription + "\n")
    }

    @Test func definitionDeclaresEveryMethodTheDaemonServes() {
        for method in ["GetPath", "WatchPath", "ListInterfaces"] {
            #expect(VarlinkInterfaces.pathmondDescription.contains("method \(method)("))
        }
        #expect(VarlinkInterfaces.pathmondDescription.hasPrefix("# "))
        #expect(VarlinkInterfaces.pathmondDescription.contains("interface io.pathmond\n"))
    }
}
