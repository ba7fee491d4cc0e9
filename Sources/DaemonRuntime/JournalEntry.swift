// SPDX-License-Identifier: Apache-2.0
import Logging

/// One log record as the journal's native protocol takes it: a list of `NAME=value` fields, the value any bytes.
/// Built purely here, sent by `JournalLogHandler`; the tests read the fields back from this value.
package struct JournalEntry: Equatable, Sendable {
    package struct Field: Equatable, Sendable {
        var name: String
        var value: [UInt8]
    }

    package var fields: [Field]

    /// The record for one log event:
    /// - `MESSAGE=`: the message and the metadata that are not journal fields (`key=value`, sorted), exactly the
    ///   text the stderr handler writes after its prefix, so `journalctl -o cat` reads as before;
    /// - `PRIORITY=` for the level, and `SYSLOG_IDENTIFIER=`;
    /// - every metadata key that is a valid journal field name (`MESSAGE_ID`, `PATHMOND_STATUS`, `INTERFACE`, …),
    ///   its value as it is: a newline in it stays inside that field (sd_journal_sendv sends such a value in the
    ///   protocol's length-prefixed form), so no value can forge another field. Names journald reserves
    ///   (`MESSAGE`, `PRIORITY`, `SYSLOG_IDENTIFIER`, anything starting with `_`) cannot be set from metadata.
    package init(level: Logger.Level, message: String, metadata: Logger.Metadata, identifier: String) {
        var own: [Field] = []
        for (key, value) in metadata where Self.isJournalFieldName(key) && !Self.reserved.contains(key) {
            own.append(Field(name: key, value: Array(Self.text(value).utf8)))
        }
        var line: [UInt8] = []
        StandardErrorLogHandler.appendLine(message: message, metadata: metadata, skippingJournalFields: true, to: &line)
        line.removeLast()  // Its newline: the journal keeps the message without one.
        fields = [
            Field(name: "MESSAGE", value: line),
            Field(name: "PRIORITY", value: Array("\(StandardErrorLogHandler.priority(of: level))".utf8)),
            Field(name: "SYSLOG_IDENTIFIER", value: Array(identifier.utf8)),
        ]
        fields += own.sorted { $0.name < $1.name }
    }

    /// The same record as `init(level:message:metadata:identifier:)` makes of `record.metadata`, written without
    /// the dictionary (a path change's record, on the event path).
    package init(record: LogRecord, identifier: String) {
        var line: [UInt8] = []
        record.appendLine(to: &line)
        var own = [Field(name: "MESSAGE_ID", value: Array(record.kind.messageID.utf8))]
        for (field, value) in record.fields {
            own.append(Field(name: field.rawValue, value: Array(value.utf8)))
        }
        fields = [
            Field(name: "MESSAGE", value: line),
            Field(name: "PRIORITY", value: Array("\(StandardErrorLogHandler.priority(of: record.level))".utf8)),
            Field(name: "SYSLOG_IDENTIFIER", value: Array(identifier.utf8)),
        ]
        fields += own.sorted { $0.name < $1.name }
    }

    /// Each field as one iovec's bytes: `NAME=value`.
    package var encodedFields: [[UInt8]] {
        fields.map { Array($0.name.utf8) + [UInt8(ascii: "=")] + $0.value }
    }

    /// The value of the first field called `name`, as text.
    package subscript(name: String) -> String? {
        fields.first { $0.name == name }.map { String(decoding: $0.value, as: UTF8.self) }
    }

    /// journald's rule for a field a client may set: 1 to 64 characters of A–Z, 0–9 and `_`, not starting with a
    /// digit or `_` (fields starting with `_` are journald's trusted ones).
    package static func isJournalFieldName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard let first = bytes.first, bytes.count <= 64, first != UInt8(ascii: "_"),
            !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
        else { return false }
        return bytes.allSatisfy {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                || $0 == UInt8(ascii: "_")
        }
    }

    /// Fields this type sets itself.
    package static let reserved: Set<String> = ["MESSAGE", "PRIORITY", "SYSLOG_IDENTIFIER"]

    private static func text(_ value: Logger.Metadata.Value) -> String {
        if case .string(let text) = value { return text }
        return "\(value)"
    }
}
