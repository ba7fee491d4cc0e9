// SPDX-License-Identifier: Apache-2.0
import Glibc
import StateFiles
import Testing

/// The one bounded reader: a regular file within its bound, and a clear refusal for anything else, never a hang.
@Suite struct StateFileReaderTests {
    let directory: ScratchDirectory

    init() throws { directory = try ScratchDirectory() }

    @Test func aRegularFileIsReadWhole() throws {
        let bytes = (0..<50_000).map { UInt8(truncatingIfNeeded: $0) }
        try StateFileWriter.replace(directory.file("state"), with: bytes, mode: 0o600, durable: false)
        #expect(try StateFileReader.read(directory.file("state"), limit: bytes.count) == bytes)
    }

    @Test func aFileOverTheBoundIsRefused() throws {
        try StateFileWriter.replace(
            directory.file("state"), with: [UInt8](repeating: 7, count: 33), mode: 0o600,
            durable: false)
        #expect(throws: StateFileReader.Refusal.tooLarge(size: 33, limit: 32)) {
            try StateFileReader.read(directory.file("state"), limit: 32)
        }
    }

    /// Opened blocking, a FIFO would wait for a writer for ever.
    @Test func aFIFOIsRefusedWithoutBlocking() throws {
        #expect(mkfifo(directory.file("fifo"), 0o600) == 0)
        #expect(throws: StateFileReader.Refusal.notRegularFile("a FIFO")) {
            try StateFileReader.read(directory.file("fifo"), limit: 32)
        }
    }

    /// A link to /dev/zero would be read until memory ran out; followed (the configuration file), the device is
    /// still not a regular file.
    @Test func aSymbolicLinkIsRefusedUnlessFollowed() throws {
        #expect(symlink("/dev/zero", directory.file("link")) == 0)
        #expect(throws: StateFileReader.Refusal.symbolicLink) {
            try StateFileReader.read(directory.file("link"), limit: 32)
        }
        #expect(throws: StateFileReader.Refusal.notRegularFile("a character device")) {
            try StateFileReader.read(directory.file("link"), limit: 32, followingSymbolicLinks: true)
        }
    }

    @Test func aMissingFileIsENOENT() {
        #expect(throws: StateFileReader.Refusal.system(.noSuchFileOrDirectory)) {
            try StateFileReader.read(directory.file("none"), limit: 32)
        }
    }
}
