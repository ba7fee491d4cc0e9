// SPDX-License-Identifier: Apache-2.0
import Logging

/// A log record whose fields are known where it is made: its kind (`JournalRecord`: the MESSAGE_ID), its journal
/// fields and the pairs a person reads after the message. Every path change logs one, so it is on the event path:
/// its texts are written where it is made, back to back into one buffer (a cause's words and a path's summary
/// spelled straight into it, never made Strings), and pathmond's own handlers (`RecordLogHandler`) copy them from
/// there. Made of Strings in pairs, the record cost a path change 10,800 instructions, a tenth of its cost, most of
/// it Strings made, escaped, copied and freed; made so, it costs 6,900, the datagram and its send most of it
/// (issue 41). swift-log's way, a metadata dictionary built, hashed,
/// merged, filtered and sorted, had cost 16,000 more. Any other handler (a test's, a library user's) gets the same
/// record as metadata (`metadata`), so what it sees does not depend on the shortcut.
package struct LogRecord: Sendable {
    package var level: Logger.Level
    package let kind: JournalRecord
    /// `MESSAGE=`, the message and each shown pair as ` key=value`, as given: the journal's MESSAGE field as it is
    /// sent whenever the line needs no escaping (every path change's), pointed at in place; then each journal
    /// field's text, `NAME=value`, as the journal takes it. The line's escaping, when it needs any, is its writer's.
    private var text: [UInt8] = []
    private var messageEnd = 0
    /// Where the line ends: the shown pairs come before any field.
    private var lineEnd = 0
    /// What follows the message in `text`, in the order added.
    private var pieces: [Piece] = []

    /// `MESSAGE=`, where the message starts in `text`.
    private static let messageStart = 8

    /// A text after the message: a pair shown on the line (its value's bytes) or a journal field (its
    /// `NAME=value`), and where it lies in `text`.
    fileprivate struct Piece: Sendable {
        enum Role: Sendable {
            case shown(StaticString)
            case field(JournalRecord.Field)
        }
        let role: Role
        let start: Int
        let end: Int
    }

    /// A record with its message; its pairs and fields are added after (`show`, then `field`).
    package init(_ kind: JournalRecord, level: Logger.Level, message: String, capacity: Int = 192) {
        self.kind = kind
        self.level = level
        text.reserveCapacity(capacity)
        pieces.reserveCapacity(8)
        text.appendUTF8("MESSAGE=")
        text.appendUTF8(message)
        messageEnd = text.count
        lineEnd = messageEnd
    }

    /// A record from its pairs at once: `fields`' nil values are left out, and `shown` must come in key order.
    package init(
        _ kind: JournalRecord, level: Logger.Level, message: String,
        fields: KeyValuePairs<JournalRecord.Field, String?>, shown: KeyValuePairs<StaticString, String>
    ) {
        self.init(kind, level: level, message: message)
        for (key, value) in shown { show(key, value) }
        for case (let field, let value?) in fields { self.field(field, value) }
    }

    /// Adds a pair shown after the message as ` key=value`. Pairs must be added in key order (the line shows them
    /// so, and sorting them each time cost a path change 500 instructions), before any journal field (the line is
    /// one piece of the text), and their keys must not be journal field names (the line leaves those out):
    /// lower-case words, as every call site's are.
    package mutating func show(_ key: StaticString, _ value: String) {
        show(key) { $0.appendUTF8(value) }
    }

    /// Adds a shown pair whose value `write` appends to the bytes it is given.
    package mutating func show(_ key: StaticString, _ write: (inout [UInt8]) -> Void) {
        assert(lastShownKey.map { $0 < key.description } ?? true, "shown out of key order")
        precondition(lineEnd == text.count, "a shown pair after a journal field")
        text.append(UInt8(ascii: " "))
        text.appendUTF8(key)
        text.append(UInt8(ascii: "="))
        let start = text.count
        write(&text)
        pieces.append(Piece(role: .shown(key), start: start, end: text.count))
        lineEnd = text.count
    }

    /// Adds a journal field.
    package mutating func field(_ field: JournalRecord.Field, _ value: String) {
        let start = text.count
        appendName(of: field)
        text.appendUTF8(value)
        pieces.append(Piece(role: .field(field), start: start, end: text.count))
    }

    /// Adds a journal field whose value is constant text.
    package mutating func field(_ field: JournalRecord.Field, constant value: StaticString) {
        let start = text.count
        appendName(of: field)
        text.appendUTF8(value)
        pieces.append(Piece(role: .field(field), start: start, end: text.count))
    }

    /// `NAME=`, before a field's value.
    private mutating func appendName(of field: JournalRecord.Field) {
        text.appendUTF8(field.name)
        text.append(UInt8(ascii: "="))
    }

    private var lastShownKey: String? {
        for piece in pieces.reversed() { if case .shown(let key) = piece.role { return key.description } }
        return nil
    }

    /// `message key=value ...` as a line shows it, without its newline: line breaks and what a terminal would act
    /// on escaped (`StandardErrorLogHandler.appendOneLine`). A line that needs none, the usual one, is copied whole.
    package func appendLine(to bytes: inout [UInt8]) {
        text.withUnsafeBufferPointer { all in
            let line = UnsafeBufferPointer(rebasing: all[Self.messageStart..<lineEnd])
            if StandardErrorLogHandler.isPlainLine(line) { return bytes.append(contentsOf: line) }
            StandardErrorLogHandler.appendOneLine(
                UnsafeBufferPointer(rebasing: all[Self.messageStart..<messageEnd]), to: &bytes)
            for piece in pieces {
                guard case .shown(let key) = piece.role else { continue }
                bytes.append(UInt8(ascii: " "))
                bytes.appendUTF8(key)
                bytes.append(UInt8(ascii: "="))
                StandardErrorLogHandler.appendOneLine(
                    UnsafeBufferPointer(rebasing: all[piece.start..<piece.end]), to: &bytes)
            }
        }
    }

    /// The journal's `MESSAGE=line` field: read in place when the line needs no escaping, else escaped into an
    /// array made for the call; valid only inside `body`.
    package func withJournalMessage<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        text.withUnsafeBufferPointer { all in
            if StandardErrorLogHandler.isPlainLine(UnsafeBufferPointer(rebasing: all[Self.messageStart..<lineEnd])) {
                return body(UnsafeBufferPointer(rebasing: all[..<lineEnd]))
            }
            var escaped: [UInt8] = []
            escaped.reserveCapacity(lineEnd + 64)
            escaped.appendUTF8("MESSAGE=")
            appendLine(to: &escaped)
            return escaped.withUnsafeBufferPointer(body)
        }
    }

    /// Each journal field and its value's bytes, in the order added; read in place.
    package func forEachField(_ body: (JournalRecord.Field, UnsafeBufferPointer<UInt8>) -> Void) {
        withJournalFields { fields in
            for (field, named) in fields {
                body(field, UnsafeBufferPointer(rebasing: named[(field.name.utf8CodeUnitCount + 1)...]))
            }
        }
    }

    /// The journal fields as the journal takes them, `NAME=value` each, in the order added; read in place, valid
    /// only inside `body`.
    package func withJournalFields<Result>(
        _ body: (JournalFields) -> Result
    ) -> Result {
        text.withUnsafeBufferPointer { body(JournalFields(text: $0, pieces: pieces[...])) }
    }

    /// A record's journal fields, read where they are in its text: a sequence of each field and its `NAME=value`.
    package struct JournalFields: Sequence {
        fileprivate let text: UnsafeBufferPointer<UInt8>
        fileprivate let pieces: ArraySlice<Piece>

        package struct Iterator: IteratorProtocol {
            fileprivate let text: UnsafeBufferPointer<UInt8>
            fileprivate var pieces: ArraySlice<Piece>

            package mutating func next() -> (field: JournalRecord.Field, named: UnsafeBufferPointer<UInt8>)? {
                while let piece = pieces.popFirst() {
                    if case .field(let field) = piece.role {
                        return (field, UnsafeBufferPointer(rebasing: text[piece.start..<piece.end]))
                    }
                }
                return nil
            }
        }

        package func makeIterator() -> Iterator { Iterator(text: text, pieces: pieces) }

        /// The most fields there are (every piece but the shown pairs is one).
        package var maximumCount: Int { pieces.count }
    }

    /// The message, as text.
    package var message: String { String(decoding: text[Self.messageStart..<messageEnd], as: UTF8.self) }

    /// The shown pairs, as text, in order.
    package var shown: [(key: String, value: String)] {
        pieces.compactMap { piece in
            guard case .shown(let key) = piece.role else { return nil }
            return (key.description, String(decoding: text[piece.start..<piece.end], as: UTF8.self))
        }
    }

    /// The journal fields, as text, in the order added.
    package var fields: [(field: JournalRecord.Field, value: String)] {
        var fields: [(field: JournalRecord.Field, value: String)] = []
        forEachField { fields.append(($0, String(decoding: $1, as: UTF8.self))) }
        return fields
    }

    /// The record as swift-log metadata: exactly what a call site passed before the shortcut.
    package var metadata: Logger.Metadata {
        var metadata = kind.metadata()
        for (field, value) in fields { metadata[field.rawValue] = .string(value) }
        for (key, value) in shown { metadata[key] = .string(value) }
        return metadata
    }
}

/// A handler that writes a `LogRecord` without going through metadata; what it writes must be what its
/// `log(event:)` writes for `record.metadata`.
package protocol RecordLogHandler: LogHandler {
    func log(record: LogRecord)
}

extension Logger {
    /// Logs `record` at its level: through the handler's own writer when it has one and no metadata of its own to
    /// merge, else as swift-log metadata.
    package func log(_ record: LogRecord) {
        guard logLevel <= record.level else { return }
        if let writer = recordWriter {
            writer.log(record: record)
        } else {
            log(level: record.level, "\(record.message)", metadata: record.metadata)
        }
    }

    /// The handler as a record writer, when it is one and has no metadata of its own to merge.
    package var recordWriter: (any RecordLogHandler)? {
        // pathmond's own two handlers by their types first: a cast to a concrete type compares one pointer, the
        // cast to the protocol searched the conformances (1,300 instructions a path change). The journal's first:
        // it is a unit's, on every host (a cast that fails costs 380 instructions).
        let writer: (any RecordLogHandler)? =
            handler as? JournalLogHandler ?? handler as? StandardErrorLogHandler ?? handler as? any RecordLogHandler
        guard let writer, writer.metadata.isEmpty, writer.metadataProvider == nil else { return nil }
        return writer
    }
}

/// A logger for a caller that logs a record on every change (the hub, at each path change): its handler's record
/// writer is found once, when it is made, not cast from the handler for each record (two casts and the
/// existential's copies, 1,100 instructions a path change; issue 41). The logger's handler never changes after
/// it is made, so the writer stays the one `Logger.log(_:)` would find.
package struct RecordLogger: Sendable {
    private let logger: Logger
    private let writer: (any RecordLogHandler)?

    package init(_ logger: Logger) {
        self.logger = logger
        writer = logger.recordWriter
    }

    package func log(_ record: LogRecord) {
        guard let writer else { return logger.log(record) }
        guard writer.logLevel <= record.level else { return }
        writer.log(record: record)
    }
}
