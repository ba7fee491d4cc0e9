// SPDX-License-Identifier: Apache-2.0
import FuzzSupport
import Logging
import PathModel
import Testing

@testable import DaemonRuntime

/// A path change's record is written by pathmond's handlers without swift-log's metadata: what they write must be
/// byte for byte what they write for the same record as metadata, and any other handler must get that metadata.
@Suite struct LogRecordTests {
    /// Values a record carries in the field: names with spaces, line breaks, escapes, a terminal's control
    /// characters, non-ASCII, nothing.
    private static let values = [
        "eth0", "satisfied via eth0,wlan0 (expensive)", "two\nlines", "cr\rhere", "back\\slash", "esc\u{1B}]0;x\u{07}",
        "wlan-café", "ab\u{202E}cd", "", "kernel: default route via 192.0.2.1 on eth0 added",
    ]

    private static func records() -> [LogRecord] {
        var generator = FuzzRandom(seed: 41)
        let levels: [Logger.Level] = [.trace, .debug, .info, .notice, .warning, .error, .critical]
        return (0..<300).map { _ in
            func value() -> String { values.randomElement(using: &generator)! }
            func maybe() -> String? { Bool.random(using: &generator) ? value() : nil }
            return LogRecord(
                JournalRecord.allCases.randomElement(using: &generator)!,
                level: levels.randomElement(using: &generator)!, message: value(),
                fields: [
                    .status: maybe(), .expensive: maybe(), .constrained: maybe(), .cause: maybe(), .interface: maybe(),
                ],
                shown: Bool.random(using: &generator) ? ["cause": value(), "path": value()] : ["reason": value()])
        }
    }

    @Test func theLineIsTheOneItsMetadataMakes() {
        for record in Self.records() {
            var direct: [UInt8] = []
            StandardErrorLogHandler.appendLine(of: record, to: &direct)
            var viaMetadata: [UInt8] = []
            StandardErrorLogHandler.appendLine(
                message: record.message, metadata: record.metadata, skippingJournalFields: true, to: &viaMetadata)
            #expect(direct == viaMetadata, "\(record.metadata)")
        }
    }

    @Test func theJournalEntryIsTheOneItsMetadataMakes() {
        for record in Self.records() {
            let direct = JournalEntry(record: record, identifier: "pathmond")
            let viaMetadata = JournalEntry(
                level: record.level, message: record.message, metadata: record.metadata, identifier: "pathmond")
            #expect(direct == viaMetadata, "\(record.metadata)")
        }
    }

    /// What the journal handler sends for a record: the entry's fields, byte for byte (the journal keeps them by
    /// name, so their order is not compared).
    @Test func theDatagramCarriesTheEntrysFields() {
        for record in Self.records() {
            let sent = JournalDatagram(record: record, identifier: "pathmond").fields
            let entry = JournalEntry(record: record, identifier: "pathmond").encodedFields
            #expect(sent.count == entry.count)
            #expect(
                sent.sorted { $0.lexicographicallyPrecedes($1) } == entry.sorted { $0.lexicographicallyPrecedes($1) })
            #expect(sent.first.map { String(decoding: $0.prefix(8), as: UTF8.self) } == "MESSAGE=")
        }
    }

    @Test func aPathChangeRecordCarriesItsIDAndFields() {
        let record = LogRecord(
            .pathChanged, level: .info, message: "path changed",
            fields: [.status: "satisfied", .interface: "eth0", .cause: nil], shown: ["cause": "x", "path": "via eth0"])
        let entry = JournalEntry(record: record, identifier: "pathmond")
        #expect(entry["MESSAGE"] == "path changed cause=x path=via eth0")
        #expect(entry["MESSAGE_ID"] == JournalRecord.pathChanged.messageID)
        #expect(entry["PATHMOND_STATUS"] == "satisfied")
        #expect(entry["INTERFACE"] == "eth0")
        #expect(entry["PATHMOND_CAUSE"] == nil)
    }

    /// A path change's record, its words spelled into its bytes, is the record of the words as Strings: the
    /// cause's `description` (what the history keeps) and the path's summary, whatever the cause and the path.
    @Test func aPathChangeRecordIsTheOneItsWordsMake() {
        var generator = FuzzRandom(seed: 4141)
        let names = ["eth0", "wlan-café", "esc\u{1B}]0;x", "two\nlines", "back\\slash"]
        for _ in 0..<300 {
            func some<T>(_ values: [T]) -> T { values.randomElement(using: &generator)! }
            let cause: PathChangeCause? =
                Bool.random(using: &generator)
                ? nil
                : PathChangeCause(
                    kind: some(PathChangeCause.Kind.allCases),
                    kernelTables: Array(PathChangeCause.KernelTable.allCases.prefix(some([0, 1, 3]))),
                    interfaces: Array(names.prefix(some([0, 1, 2]))),
                    detection: some([nil] + PathChangeCause.Detection.allCases), network: some([nil, "wifi:Home"]),
                    userID: some([nil, 1000]), detail: some([nil, "expensive", "overflow\n"]))
            let interfaces = names.prefix(some([0, 1, 2])).enumerated().map {
                PathInterface(index: Int32($0.offset + 2), name: $0.element, kind: .wired, isExpensive: false)
            }
            let path =
                interfaces.isEmpty
                ? Path.unsatisfied(some(UnsatisfiedReason.allCases))
                : Path(
                    status: .satisfied, availableInterfaces: interfaces, isExpensive: Bool.random(using: &generator),
                    isConstrained: Bool.random(using: &generator))
            var summary = [UInt8]()
            LogRecord.appendSummary(of: path, to: &summary)
            let words = LogRecord(
                .pathChanged, level: .info, message: "path changed",
                fields: [
                    .status: path.status.rawValue, .expensive: path.isExpensive ? "yes" : "no",
                    .constrained: path.isConstrained ? "yes" : "no", .cause: (cause?.kind ?? .unspecified).rawValue,
                    .interface: path.availableInterfaces.first?.name,
                ],
                shown: ["cause": cause?.description ?? "unknown", "path": String(decoding: summary, as: UTF8.self)])
            let spelled = LogRecord.pathChanged(path, cause: cause)
            #expect(spelled.metadata == words.metadata)
            #expect(
                JournalEntry(record: spelled, identifier: "pathmond")
                    == JournalEntry(record: words, identifier: "pathmond"))
            var line: [UInt8] = []
            StandardErrorLogHandler.appendLine(of: spelled, to: &line)
            #expect(String(decoding: line, as: UTF8.self).hasPrefix("path changed cause="))
        }
        let satisfied = Path(
            status: .satisfied,
            availableInterfaces: [PathInterface(index: 2, name: "eth0", kind: .wired, isExpensive: true)],
            isExpensive: true, isConstrained: false)
        var summary = [UInt8]()
        LogRecord.appendSummary(of: satisfied, to: &summary)
        #expect(String(decoding: summary, as: UTF8.self) == "satisfied via eth0 (expensive)")
    }

    /// Another handler (a test's, a library user's) sees the record as metadata; a handler with metadata of its own
    /// gets it merged, through the ordinary way, even when it could write records itself.
    @Test func otherHandlersAndOwnMetadataGetTheMetadata() {
        let record = LogRecord(
            .resync, level: .warning, message: "resynced", fields: [.cause: "resync"], shown: ["reason": "overflow"])
        let seen = Captured()
        var logger = Logger(label: "test") { _ in PlainHandler(seen: seen) }
        logger.log(record)
        #expect(seen.events.count == 1)
        #expect(seen.events.first?.metadata == record.metadata)
        #expect(seen.events.first?.message == "resynced")

        logger.logLevel = .error
        logger.log(record)
        #expect(seen.events.count == 1, "below the logger's level: nothing")

        var writer = Logger(label: "test") { _ in RecordWriter(seen: seen) }
        writer.log(record)
        #expect(seen.records.count == 1)
        #expect(seen.events.count == 1)
        writer[metadataKey: "unit"] = "x"
        writer.log(record)
        #expect(seen.records.count == 1)
        #expect(seen.events.count == 2)
        #expect(seen.events.last?.metadata?["unit"] == "x")
        #expect(seen.events.last?.metadata?["PATHMOND_CAUSE"] == "resync")
    }

    /// The hub's logger, which finds its handler's record writer once, logs what `Logger.log(_:)` would: records
    /// through a writer, metadata to any other handler or to a writer with metadata of its own, nothing below
    /// the level.
    @Test func aRecordLoggerLogsWhatItsLoggerWould() {
        let record = LogRecord(
            .resync, level: .warning, message: "resynced", fields: [.cause: "resync"], shown: ["reason": "overflow"])
        let seen = Captured()
        var writer = Logger(label: "test") { _ in RecordWriter(seen: seen) }
        RecordLogger(writer).log(record)
        #expect(seen.records.count == 1 && seen.events.isEmpty)
        writer.logLevel = .error
        RecordLogger(writer).log(record)
        #expect(seen.records.count == 1 && seen.events.isEmpty, "below the level: nothing")
        writer.logLevel = .trace
        writer[metadataKey: "unit"] = "x"
        RecordLogger(writer).log(record)
        #expect(seen.records.count == 1)
        #expect(seen.events.last?.metadata?["unit"] == "x")
        #expect(seen.events.last?.metadata?["PATHMOND_CAUSE"] == "resync")
        let plain = Logger(label: "test") { _ in PlainHandler(seen: seen) }
        RecordLogger(plain).log(record)
        #expect(seen.records.count == 1)
        #expect(seen.events.count == 2)
        #expect(seen.events.last?.metadata == record.metadata)
    }
}

/// What the handlers below were given.
private final class Captured: @unchecked Sendable {
    var events: [(message: String, metadata: Logger.Metadata?)] = []
    var records: [LogRecord] = []
}

/// A handler that knows nothing of records.
private struct PlainHandler: LogHandler {
    let seen: Captured
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        seen.events.append(("\(event.message)", fields(of: event)))
    }
}

/// A handler that writes records itself.
private struct RecordWriter: RecordLogHandler {
    var plain: PlainHandler

    init(seen: Captured) { plain = PlainHandler(seen: seen) }

    var logLevel: Logger.Level {
        get { plain.logLevel }
        set { plain.logLevel = newValue }
    }
    var metadata: Logger.Metadata {
        get { plain.metadata }
        set { plain.metadata = newValue }
    }
    var metadataProvider: Logger.MetadataProvider? {
        get { plain.metadataProvider }
        set { plain.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { plain[metadataKey: key] }
        set { plain[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) { plain.log(event: event) }
    func log(record: LogRecord) { plain.seen.records.append(record) }
}
