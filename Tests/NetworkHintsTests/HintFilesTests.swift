// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing

@testable import NetworkHints

/// Reading a hint file: whole up to its bound (over several reads when larger than one), nil past it, and only
/// regular files.
@Suite struct HintFilesTests {
    @Test(arguments: [0, 1, 64, 16 * 1024, 16 * 1024 + 1, 40_000])
    func readsAFileUpToItsBoundWhole(size: Int) throws {
        let directory = makeTemporaryDirectory()
        defer { removeTree(directory) }
        let path = directory + "/file"
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(descriptor >= 0)
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        #expect(HintFiles.read(path, maximumSize: size) == bytes)
        #expect(HintFiles.read(path, maximumSize: 1 << 20) == bytes)
        if size > 0 { #expect(HintFiles.read(path, maximumSize: size - 1) == nil, "one byte past the bound") }
    }

    @Test func refusesWhatIsNotARegularFile() {
        #expect(HintFiles.read("/dev/null") == nil)
        #expect(HintFiles.read("/proc/self") == nil)
        #expect(HintFiles.read("/nonexistent/file") == nil)
    }
}
