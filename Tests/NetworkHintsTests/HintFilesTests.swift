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

    /// Into a caller's buffer (a sysfs attribute, on every carrier flip): whole while it leaves a byte free, nil
    /// once it would fill the buffer, whatever the reads' sizes.
    @Test(arguments: [0, 1, 64, 65, 200])
    func readsASmallFileIntoTheCallersBuffer(size: Int) throws {
        let directory = makeTemporaryDirectory()
        defer { removeTree(directory) }
        let path = directory + "/file"
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(descriptor >= 0)
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        let read = withUnsafeTemporaryAllocation(byteCount: 65, alignment: 1) { buffer in
            path.withCString { HintFiles.read(path: $0, into: buffer).map(Array.init) }
        }
        #expect(read == (size <= 64 ? bytes : nil))
    }

    @Test func refusesWhatIsNotARegularFile() {
        #expect(HintFiles.read("/dev/null") == nil)
        #expect(HintFiles.read("/proc/self") == nil)
        #expect(HintFiles.read("/nonexistent/file") == nil)
        let intoBuffer = withUnsafeTemporaryAllocation(byteCount: 65, alignment: 1) { buffer in
            ["/dev/zero", "/proc/self", "/nonexistent/file"].map { name in
                name.withCString { HintFiles.read(path: $0, into: buffer) == nil }
            }
        }
        #expect(intoBuffer == [true, true, true])
    }
}
