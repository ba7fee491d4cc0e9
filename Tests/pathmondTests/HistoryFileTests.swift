// SPDX-License-Identifier: Apache-2.0
import Foundation
import Logging
import PathModel
import PathProtocol
import StateFiles
import Testing

@testable import pathmond

/// history.jsonl: written whole or appended to, read back the same; a last line an append did not finish dropped
/// without losing the file; a damaged file set aside with what it still held.
@Suite struct HistoryFileTests {
    static func temporaryDirectory() throws -> String {
        let path = "/tmp/pmhist-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func entries(_ count: Int) -> [PathHistoryEntry] {
        var history = PathHistory(capacity: count)
        for index in 0..<count {
            history.append(
                wallMicroseconds: 1_795_000_000_000_000 + Int64(index), monotonicMicroseconds: UInt64(index),
                bootID: "boot", before: PathSummary(status: .unsatisfied, unsatisfiedReason: .noCarrier),
                after: PathSummary(status: .satisfied, interfaces: ["eth0", "wlan0"], isExpensive: true),
                cause: PathChangeCause(
                    kind: .kernel, kernelTables: [.link, .route], interfaces: ["eth0"]))
        }
        return history.entries
    }

    static func asideFiles(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".corrupt-") }
    }

    @Test func roundTripsEveryField() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = HistoryFile(stateDirectory: directory)
        let written =
            Self.entries(3) + [
                PathHistoryEntry(
                    sequence: 4, wallMicroseconds: 5, monotonicMicroseconds: 6,
                    before: PathSummary(status: .satisfied),
                    after: PathSummary(status: .satisfied, isConstrained: true),
                    cause: .policy(network: "wifi:Home", userID: 1000, setting: "constrained"))
            ]
        try file.write(written)
        let loaded = file.load()
        #expect(loaded.problem == nil)
        #expect(loaded.entries == written)
        // Private to the daemon: it tells when and where the machine was.
        var status = stat()
        #expect(stat(file.path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
    }

    @Test func aMissingFileIsAnEmptyHistory() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let loaded = HistoryFile(stateDirectory: directory).load()
        #expect(loaded.entries.isEmpty)
        #expect(loaded.problem == nil)
    }

    @Test func aDamagedFileIsSetAsideKeepingItsGoodLines() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = HistoryFile(stateDirectory: directory)
        var bytes = HistoryFile.encode(Self.entries(4))
        // A torn last line, as a full disk might leave it, and garbage in the middle.
        bytes.removeLast(40)
        let lines = bytes.split(separator: UInt8(ascii: "\n")).map(Array.init)
        let damaged = [lines[0], lines[1], Array("{not json".utf8), lines[2], lines[3], lines[4]]
        try Data(damaged.joined(separator: [UInt8(ascii: "\n")])).write(to: URL(filePath: file.path))
        let loaded = file.load()
        #expect(loaded.entries.map(\.sequence) == [1, 2, 3])
        let problem = try #require(loaded.problem)
        #expect(problem.contains("line 3"))
        #expect(problem.contains("set aside"))
        #expect(try Self.asideFiles(directory).count == 1)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test func appendsAddWholeLinesToTheFile() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = HistoryFile(stateDirectory: directory)
        let entries = Self.entries(5)
        try file.write(Array(entries.prefix(2)))
        try file.append(Array(entries[2..<4]))
        try file.append([entries[4]])
        // Byte for byte what writing them whole gives: a grown file and a compacted one are the same format.
        #expect(Array(try Data(contentsOf: URL(filePath: file.path))) == HistoryFile.encode(entries))
        let loaded = file.load()
        #expect(loaded.entries == entries)
        #expect(loaded.problem == nil && loaded.tornTail == nil)
        #expect(loaded.appendableEntries == 5)
        // Without a file there is no header to append after: an error, and no headless file.
        try FileManager.default.removeItem(atPath: file.path)
        #expect(throws: StateFileError.self) { try file.append([entries[0]]) }
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    /// An append cut short (a crash or a full disk: part of a line; a power cut on some file systems: zeros) loses
    /// that line only: the file is neither set aside nor appended to until rewritten. An entry missing only its
    /// newline is kept.
    @Test(arguments: ["part of a line", "zeros", "no newline"])
    func aLastLineCutShortIsDroppedAndTheFileKept(_ tail: String) throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = HistoryFile(stateDirectory: directory)
        let entries = Self.entries(4)
        let fourth = HistoryFile.encodeLines([entries[3]])
        var bytes = HistoryFile.encode(Array(entries.prefix(3)))
        switch tail {
        case "part of a line": bytes += fourth.prefix(fourth.count / 2)
        case "zeros": bytes += [UInt8](repeating: 0, count: 300)
        default: bytes += fourth.dropLast()
        }
        try Data(bytes).write(to: URL(filePath: file.path))
        let loaded = file.load()
        #expect(loaded.problem == nil)
        #expect(loaded.appendableEntries == nil)
        if tail == "no newline" {
            #expect(loaded.entries == entries)
            #expect(loaded.tornTail == nil)
        } else {
            #expect(loaded.entries == Array(entries.prefix(3)))
            let said = try #require(loaded.tornTail)
            #expect(said.contains("cut short") && said.contains("3 entries"))
        }
        #expect(try Self.asideFiles(directory).isEmpty)
        #expect(FileManager.default.fileExists(atPath: file.path))
    }

    @Test(arguments: [
        "not a history\n", "\u{0}\u{1}\u{2}",
        "{\"format\":\"something-else\",\"version\":1}\n",
    ])
    func aForeignFileIsSetAsideWhole(_ text: String) throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = HistoryFile(stateDirectory: directory)
        try Data(text.utf8).write(to: URL(filePath: file.path))
        let loaded = file.load()
        #expect(loaded.entries.isEmpty)
        #expect(loaded.problem != nil)
        #expect(try Self.asideFiles(directory).count == 1)
    }

    /// A newer pathmond's file stays where its own pathmond looks for it, untouched, like a newer policy.json; it is
    /// reported, and the daemon never writes it.
    @Test func aNewerFileIsKeptAndReported() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = HistoryFile(stateDirectory: directory)
        let text = "{\"format\":\"pathmond-history\",\"version\":9}\n{\"a future\":\"entry\"}\n"
        try Data(text.utf8).write(to: URL(filePath: file.path))
        let loaded = file.load()
        #expect(loaded.isNewerVersion)
        #expect(loaded.problem?.contains("newer pathmond") == true)
        #expect(try Self.asideFiles(directory).isEmpty)
        #expect(try String(contentsOfFile: file.path, encoding: .utf8) == text)
        let writers = StateWriters.load(
            configuration: Configuration(), stateDirectory: directory, counters: DaemonCounters(),
            logger: Logger(label: "test"))
        #expect(writers.historyFile == nil)
    }

    /// 100 MB after the last newline is not an append cut short: the file is kept aside with it, and the entries
    /// before it are kept.
    @Test func aLongTailIsKeptAsideNotDropped() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = HistoryFile(stateDirectory: directory)
        let bytes = HistoryFile.encode(Self.entries(3)) + [UInt8](repeating: UInt8(ascii: "x"), count: 100 << 20)
        try Data(bytes).write(to: URL(filePath: file.path))
        let loaded = file.load()
        #expect(loaded.entries.count == 3)
        #expect(loaded.tornTail == nil)
        #expect(loaded.problem?.contains("after the last whole line") == true)
        let aside = try Self.asideFiles(directory)
        #expect(aside.count == 1)
        let name = try #require(aside.first)
        let kept = try FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.size] as? Int
        #expect(kept == bytes.count)
    }

    /// A short torn tail is dropped from the file, but its bytes are kept beside it.
    @Test func aTornTailIsCopiedAside() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = HistoryFile(stateDirectory: directory)
        let tail = Array("{\"after\":{\"interfaces\"".utf8)
        try Data(HistoryFile.encode(Self.entries(2)) + tail).write(to: URL(filePath: file.path))
        let loaded = file.load()
        #expect(loaded.tornTail?.contains("kept as") == true)
        let copies = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".torn-") }
        #expect(copies.count == 1)
        let copy = try #require(copies.first)
        #expect(try Data(contentsOf: URL(filePath: directory + "/" + copy)) == Data(tail))
    }

    /// One valid but huge entry is flagged and skipped; the entries around it are kept.
    @Test func aHugeEntryDoesNotHideTheRest() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = HistoryFile(stateDirectory: directory)
        var entries = Self.entries(4)
        entries[2].cause.detail = String(repeating: "d", count: 1 << 20)
        try Data(HistoryFile.encode(entries)).write(to: URL(filePath: file.path))
        let loaded = file.load()
        #expect(loaded.entries.map(\.sequence) == [1, 2, 4])
        #expect(loaded.problem?.contains("line 4") == true)
    }

    /// The daemon records no entry whose line would pass the bound, whatever the change.
    @Test func recordedEntriesAreBounded() throws {
        let log = HistoryLog()
        var cause = PathChangeCause(kind: .kernel, kernelTables: [.link], interfaces: (0..<10_000).map { "veth\($0)" })
        cause.detail = String(repeating: "é", count: 100_000)
        let path = Path(status: .satisfied)
        _ = log.record(before: path, after: path, cause: cause)
        let line = HistoryFile.encodeLines(log.entries(matching: PathHistoryQuery()))
        // Half the 16 KiB a line may take (the bound itself is not used: the test must not move with it).
        #expect(line.count < 8 * 1024)
    }

    /// A sequence number near the top of UInt64 would wrap on the next change: it is damage, not a sequence to
    /// continue from.
    @Test func aSequenceNearTheTopIsNotContinued() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = HistoryFile(stateDirectory: directory)
        var entries = Self.entries(2)
        entries[1].sequence = UInt64.max
        try Data(HistoryFile.encode(entries)).write(to: URL(filePath: file.path))
        let loaded = file.load()
        #expect(loaded.entries.map(\.sequence) == [1])
        #expect(loaded.problem?.contains("sequence") == true)
        var history = PathHistory(entries: loaded.entries)
        let next = history.append(
            wallMicroseconds: 0, monotonicMicroseconds: 0, before: PathSummary(status: .satisfied),
            after: PathSummary(status: .satisfied), cause: .unspecified)
        #expect(next.sequence > loaded.entries.last!.sequence)  // one entry was loaded
    }

    @Test func aSymbolicLinkIsNotFollowed() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = HistoryFile(stateDirectory: directory)
        try FileManager.default.createSymbolicLink(atPath: file.path, withDestinationPath: "/etc/shadow")
        let loaded = file.load()
        #expect(loaded.entries.isEmpty)
        #expect(loaded.problem?.contains("symbolic link") == true)
    }

    @Test func aThousandEntriesStaySmall() throws {
        let bytes = HistoryFile.encode(Self.entries(1000))
        // About half a kilobyte an entry: a default history costs the state directory under 600 KB.
        #expect(bytes.count < 600 * 1000)
        #expect(HistoryFile.decode(bytes).entries.count == 1000)
    }
}
