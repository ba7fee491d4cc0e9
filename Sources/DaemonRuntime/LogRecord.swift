// SPDX-License-Identifier: Apache-2.0
import Logging

/// A log record whose fields are known where it is made: its kind (`JournalRecord`: the MESSAGE_ID), its journal
/// fields and the pairs a person reads after the message. Every path change logs one, so it is on the event path:
/// pathmond's own handlers (`RecordLogHandler`) write it straight into bytes, while swift-log's way, a metadata
/// dictionary built, hashed, merged, filtered and sorted, cost a path change 16,000 instructions (issue 41). Any
/// other handler (a test's, a library user's) gets the same record as metadata (`metadata`), so what it sees does
/// not depend on the shortcut.
package struct LogRecord: Sendable {
    package var level: Logger.Level
    package var message: String
    package var kind: JournalRecord
    /// The journal's fields; a nil value is left out.
    package var fields: KeyValuePairs<JournalRecord.Field, String?>
    /// What follows the message as ` key=value` on the line, in key order.
    package var shown: KeyValuePairs<String, String>

    /// `shown` must come in key order (a record's pairs are a literal at its call site: sorting them each time
    /// cost a path change 500 instructions), and its keys must not be journal field names (the line leaves those
    /// out): lower-case words, as every call site's are.
    package init(
        _ kind: JournalRecord, level: Logger.Level, message: String,
        fields: KeyValuePairs<JournalRecord.Field, String?>,
        shown: KeyValuePairs<String, String>
    ) {
        assert(zip(shown, shown.dropFirst()).allSatisfy { $0.key < $1.key }, "shown out of key order")
        self.kind = kind
        self.level = level
        self.message = message
        self.fields = fields
        self.shown = shown
    }

    /// The record as swift-log metadata: exactly what a call site passed before the shortcut.
    package var metadata: Logger.Metadata {
        var metadata = kind.metadata()
        for (field, value) in fields { if let value { metadata[field.rawValue] = .string(value) } }
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
