// SPDX-License-Identifier: Apache-2.0
import Logging
import PathModel
import Testing

@testable import DaemonRuntime

#if canImport(Glibc)
    import Glibc
#endif

/// The records pathmond sends through the journal's native protocol, read back field by field as sd_journal_sendv
/// is given them (one iovec per field). The journal itself is proven in the booted root
/// (Tests/Service/checks-journal.bash): sd_journal_sendv takes no other socket than journald's.
@Suite struct JournalEntryTests {
    private func entry(_ level: Logger.Level, _ message: String, _ metadata: Logger.Metadata) -> JournalEntry {
        JournalEntry(level: level, message: message, metadata: metadata, identifier: "pathmond")
    }

    @Test func aPathChangeCarriesItsIDAndFields() {
        let path = Path(
            status: .satisfied,
            availableInterfaces: [
                PathInterface(index: 2, name: "eth0", kind: .wired, isExpensive: true),
                PathInterface(index: 3, name: "wlan0", kind: .wifi, isExpensive: false),
            ],
            isExpensive: true, isConstrained: false)
        let cause = PathChangeCause(kind: .policy, network: "wifi:Home", userID: 1000, detail: "expensive")
        let record = JournalEntry(record: .pathChanged(path, cause: cause), identifier: "pathmond")
        #expect(
            record["MESSAGE"]
                == "path changed cause=policy: wifi:Home expensive by uid 1000 path=satisfied via eth0,wlan0 (expensive)"
        )
        #expect(record["PRIORITY"] == "6")
        #expect(record["SYSLOG_IDENTIFIER"] == "pathmond")
        #expect(record["MESSAGE_ID"] == "b5af785cefbf499ba90b67d62c2e7983")
        #expect(record["PATHMOND_STATUS"] == "satisfied")
        #expect(record["PATHMOND_EXPENSIVE"] == "yes")
        #expect(record["PATHMOND_CONSTRAINED"] == "no")
        #expect(record["PATHMOND_CAUSE"] == "policy")
        #expect(record["INTERFACE"] == "eth0")
        #expect(record.encodedFields.contains(Array("INTERFACE=eth0".utf8)))
    }

    @Test func anUnsatisfiedPathNamesNoInterface() {
        let record = JournalEntry(record: .pathChanged(.unsatisfied(.noCarrier), cause: nil), identifier: "pathmond")
        #expect(record["MESSAGE"] == "path changed cause=unknown path=unsatisfied: noCarrier")
        #expect(record["INTERFACE"] == nil)
        #expect(record["PATHMOND_STATUS"] == "unsatisfied")
        #expect(record["PATHMOND_EXPENSIVE"] == "no")
        #expect(record["PATHMOND_CONSTRAINED"] == "no")
        #expect(record["PATHMOND_CAUSE"] == "unspecified")
    }

    /// Each field's constant name is its raw value, the name the metadata and the catalog use.
    @Test func fieldNamesAreTheirRawValues() {
        for field in JournalRecord.Field.allCases { #expect(field.name.description == field.rawValue) }
    }

    @Test(arguments: [
        (Logger.Level.critical, "2"), (.error, "3"), (.warning, "4"), (.notice, "5"), (.info, "6"), (.debug, "7"),
        (.trace, "7"),
    ])
    func priorityFollowsTheLevel(level: Logger.Level, priority: String) {
        #expect(entry(level, "m", [:])["PRIORITY"] == priority)
    }

    /// A value holding newlines stays one field: its iovec is `INTERFACE=` and the bytes as they are, which
    /// sd_journal_sendv frames by length, so `PRIORITY=0` or a second `MESSAGE_ID=` inside it is data, not a field.
    @Test func aHostileValueCannotForgeFields() {
        let hostile = "eth0\nPRIORITY=0\nMESSAGE_ID=00000000000000000000000000000000\n"
        let record = entry(.info, "path changed", JournalRecord.pathChanged.metadata([.interface: hostile]))
        #expect(record.fields.filter { $0.name == "PRIORITY" }.map(\.value) == [Array("6".utf8)])
        #expect(record.fields.filter { $0.name == "MESSAGE_ID" }.count == 1)
        #expect(record["INTERFACE"] == hostile)
        #expect(record.encodedFields.contains(Array("INTERFACE=\(hostile)".utf8)))
        #expect(record.encodedFields.count == record.fields.count)
    }

    /// Metadata cannot replace the fields the handler sets, nor set journald's trusted `_` fields: a key that is no
    /// field name a client may set is text in MESSAGE, escaped and on one line as on stderr.
    @Test func reservedAndInvalidNamesStayOut() {
        let record = entry(
            .error, "refused\nsecond line",
            ["PRIORITY": "0", "MESSAGE": "forged", "_PID": "1", "_SYSTEMD_UNIT": "x", "1ABC": "y", "uid": "7\u{1B}[2J"])
        #expect(record["PRIORITY"] == "3")
        #expect(record.fields.filter { $0.name == "MESSAGE" }.count == 1)
        #expect(record["MESSAGE"] == #"refused second line 1ABC=y _PID=1 _SYSTEMD_UNIT=x uid=7\x1b[2J"#)
        #expect(!record.fields.contains { $0.name.hasPrefix("_") || $0.name == "1ABC" })
    }

    @Test(arguments: [
        ("MESSAGE_ID", true), ("PATHMOND_STATUS", true), ("INTERFACE", true), ("A1", true), ("_PID", false),
        ("1A", false), ("lower", false), ("WITH-DASH", false), ("", false), (String(repeating: "A", count: 65), false),
        (String(repeating: "A", count: 64), true),
    ])
    func journalFieldNames(name: String, valid: Bool) {
        #expect(JournalEntry.isJournalFieldName(name) == valid)
    }

    /// On stderr (a terminal, or the journal's stream when the socket is missing) the record's fields stay out of
    /// the line: it reads as before.
    @Test func standardErrorLeavesTheFieldsOut() {
        var metadata = JournalRecord.resync.metadata([.cause: "resync"])
        metadata["events"] = "3"
        var line: [UInt8] = []
        StandardErrorLogHandler.appendLine(
            message: "resynced", metadata: metadata, skippingJournalFields: true, to: &line)
        #expect(String(decoding: line, as: UTF8.self) == "resynced events=3\n")
    }

    @Test func theMessageIDsAreDistinct128BitValues() {
        let ids = JournalRecord.allCases.map(\.messageID)
        #expect(Set(ids).count == ids.count)
        for id in ids {
            #expect(id.count == 32 && id.allSatisfy { "0123456789abcdef".contains($0) })
        }
    }

    /// The field sent as constant text is the ID's, for every record.
    @Test func eachMessageIDFieldIsItsID() {
        for record in JournalRecord.allCases {
            #expect(record.messageIDField.description == "MESSAGE_ID=" + record.messageID, "\(record)")
        }
    }

    /// Every record's ID has its text in the catalog `journalctl -x` shows, and the catalog names no other.
    @Test func theCatalogExplainsEveryRecord() throws {
        let catalogPath = String(#filePath.split(separator: "/Tests/").first!) + "/systemd/pathmond.catalog"
        let file = try #require(fopen("/" + catalogPath.drop { $0 == "/" }, "r"))
        defer { fclose(file) }
        var text = ""
        var buffer = [CChar](repeating: 0, count: 4096)
        while fgets(&buffer, Int32(buffer.count), file) != nil {
            text += String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        let catalogued = text.split(separator: "\n").filter { $0.hasPrefix("-- ") }.map { String($0.dropFirst(3)) }
        #expect(Set(catalogued) == Set(JournalRecord.allCases.map(\.messageID)))
        #expect(catalogued.count == JournalRecord.allCases.count)
    }

    /// Native only where stderr is the journal's stream (JOURNAL_STREAM names stderr's device and inode) and the
    /// journal's socket is a socket: a real one, bound here.
    @Test func nativeOnlyWhereStandardErrorIsTheJournalAndTheSocketIsThere() throws {
        #expect(!JournalLogHandler.journalIsThere(environment: [:]))
        #expect(!JournalLogHandler.journalIsThere(environment: ["JOURNAL_STREAM": "1:2"]))
        var status = stat()
        try #require(fstat(STDERR_FILENO, &status) == 0)
        let stream = ["JOURNAL_STREAM": "\(status.st_dev):\(status.st_ino)"]
        let directory = "/tmp/pathmond-journal-test-\(getpid())"
        try #require(mkdir(directory, 0o700) == 0)
        defer { rmdir(directory) }
        let socketPath = directory + "/socket"
        #expect(!JournalLogHandler.journalIsThere(environment: stream, socketPath: socketPath))
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in socketPath.utf8.enumerated() { bytes[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(bound == 0)
        defer { unlink(socketPath) }
        #expect(JournalLogHandler.journalIsThere(environment: stream, socketPath: socketPath))
        #expect(!JournalLogHandler.journalIsThere(environment: ["JOURNAL_STREAM": "1:2"], socketPath: socketPath))
        #expect(!JournalLogHandler.journalIsThere(environment: stream, socketPath: directory))
    }
}
