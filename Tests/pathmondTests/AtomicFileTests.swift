// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Testing

@testable import pathmond

/// The metrics file's directory belongs to node_exporter and may be writable by others: a name pathmond would
/// open for its temporary file must not be one they can plant a link at.
@Suite struct AtomicFileTests {
    @Test func aLinkPlantedAtThePredictableTemporaryNameIsNeverWrittenThrough() throws {
        let directory = try HistoryFileTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let victim = directory + "/victim"
        try Data("precious".utf8).write(to: URL(filePath: victim))
        // The name the temporary file once had: the target's name, the daemon's process ID.
        #expect(link(victim, directory + "/.pathmond.prom.\(getpid()).tmp") == 0)

        try AtomicFile.write(Array("metrics\n".utf8), to: directory + "/pathmond.prom", mode: 0o644)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        #expect(try String(contentsOfFile: directory + "/pathmond.prom", encoding: .utf8) == "metrics\n")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(names == [".pathmond.prom.\(getpid()).tmp", "pathmond.prom", "victim"], "no temporary file left")
    }
}
