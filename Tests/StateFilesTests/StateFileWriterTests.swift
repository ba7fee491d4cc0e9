// SPDX-License-Identifier: Apache-2.0
import Glibc
import StateFiles
import SystemPackage
import Testing

/// The one writer every state file goes through: whole replacement, exclusive creation, appends that never leave a
/// part behind.
@Suite struct StateFileWriterTests {
    let directory: ScratchDirectory

    init() throws { directory = try ScratchDirectory() }

    /// The metrics file's directory belongs to node_exporter and may be writable by others: a name pathmond would
    /// open for its temporary file must not be one they can plant a link at.
    @Test func aLinkPlantedAtThePredictableTemporaryNameIsNeverWrittenThrough() throws {
        let victim = directory.file("victim")
        try StateFileWriter.createNew(victim, with: Array("precious".utf8), mode: 0o644, durable: false)
        // The name the temporary file once had: the target's name, the daemon's process ID.
        let planted = ".pathmond.prom.\(getpid()).tmp"
        #expect(link(victim, directory.file(planted)) == 0)

        try StateFileWriter.replace(
            directory.file("pathmond.prom"), with: Array("metrics\n".utf8), mode: 0o644, durable: false)
        #expect(try directory.contents("victim") == Array("precious".utf8))
        #expect(try directory.contents("pathmond.prom") == Array("metrics\n".utf8))
        #expect(try directory.names() == [planted, "pathmond.prom", "victim"], "no temporary file left")
    }

    @Test(arguments: [true, false])
    func aReplacementLeavesTheNewBytesWithTheModeAskedFor(durable: Bool) throws {
        let path = directory.file("history.jsonl")
        try StateFileWriter.replace(path, with: Array("old\n".utf8), mode: 0o644, durable: durable)
        try StateFileWriter.replace(path, with: Array("new\n".utf8), mode: 0o600, durable: durable)
        #expect(try directory.contents("history.jsonl") == Array("new\n".utf8))
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        #expect(try directory.names() == ["history.jsonl"])
    }

    /// The policy store clears what crashed saves left by its own prefix, so its temporary files carry it.
    @Test func aNamedTemporaryIsRenamedIntoPlace() throws {
        let path = directory.file("policy.json")
        try StateFileWriter.replace(
            path, with: Array("{}\n".utf8), mode: 0o644, durable: true,
            temporaryName: TemporaryName(prefix: "policy.json.tmp-"))
        #expect(try directory.names() == ["policy.json"])
    }

    @Test func aReplacementInAMissingDirectoryFailsNamingTheFile() throws {
        let path = directory.file("missing/pathmond.prom")
        do {
            try StateFileWriter.replace(path, with: [1], mode: 0o644, durable: true)
            Issue.record("a file was written into a missing directory")
        } catch {
            #expect(error.operation == .create && error.errno == ENOENT)
            #expect(error.path.hasPrefix(directory.file("missing/.pathmond.prom.")))
            #expect(error.description.hasPrefix("could not create \(directory.file("missing/"))"))
        }
    }

    /// An existing name, and a symbolic link above all (it would be written through), is never replaced.
    @Test func aNewFileNeverTakesAnExistingNameOrFollowsALink() throws {
        let path = directory.file("subscriber-secret")
        try StateFileWriter.createNew(path, with: [1, 2, 3], mode: 0o600, durable: true)
        #expect(throws: StateFileError(.create, path: path, errno: EEXIST)) {
            try StateFileWriter.createNew(path, with: [4], mode: 0o600, durable: true)
        }
        let link = directory.file("link")
        #expect(symlink(directory.file("target"), link) == 0)
        #expect(throws: StateFileError(.create, path: link, errno: EEXIST)) {
            try StateFileWriter.createNew(link, with: [4], mode: 0o600, durable: true)
        }
        #expect(try directory.contents("subscriber-secret") == [1, 2, 3])
        #expect(try directory.names() == ["link", "subscriber-secret"], "the link's target was not created")
    }

    @Test func appendsGoAtTheEndAndNeedTheFile() throws {
        let path = directory.file("history.jsonl")
        #expect(throws: StateFileError(.open, path: path, errno: ENOENT)) {
            try StateFileWriter.append(Array("a\n".utf8), to: path)
        }
        #expect(try directory.names() == [], "no file was created by an append")
        try StateFileWriter.replace(path, with: Array("header\n".utf8), mode: 0o600, durable: true)
        try StateFileWriter.append(Array("a\n".utf8), to: path)
        try StateFileWriter.append(Array("b\n".utf8), to: path)
        #expect(try directory.contents("history.jsonl") == Array("header\na\nb\n".utf8))
    }

    /// A file system that stops taking bytes (here a pipe with no reader) is an error, not a loop.
    @Test func aWriteThatCannotCompleteIsAnError() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        close(ends[0])
        defer { close(ends[1]) }
        signal(SIGPIPE, SIG_IGN)
        #expect(throws: Errno.brokenPipe) {
            try StateFileWriter.writeAll([1, 2, 3], to: FileDescriptor(rawValue: ends[1]))
        }
    }
}
