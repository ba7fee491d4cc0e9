// SPDX-License-Identifier: Apache-2.0
internal import CSystemd
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// Log records through the journal's native protocol (sd_journal_sendv: one datagram on
/// /run/systemd/journal/socket per record), with their MESSAGE_ID and fields (`JournalRecord`), so that
/// `journalctl MESSAGE_ID=…`, `journalctl -x` and a fleet's log shipper see what pathmond decided without parsing
/// text.
///
/// Chosen only where stderr is the journal already (`JOURNAL_STREAM` names it: pathmond runs as a unit) and the
/// journal's socket exists: run by hand in a terminal, pathmond writes its lines there as before. A record the
/// journal does not take (journald stopped or restarting, a full socket buffer) goes to stderr, the journal's own
/// stream, as a `<PRIORITY>` line: it loses its fields, never its text.
package struct JournalLogHandler: RecordLogHandler {
    package static let socketPath = "/run/systemd/journal/socket"

    package var logLevel: Logger.Level
    package var metadata: Logger.Metadata = [:]
    package var metadataProvider: Logger.MetadataProvider?
    package let identifier: String
    /// `SYSLOG_IDENTIFIER=identifier`, made once: every record sends it.
    private let identifierField: [UInt8]

    package init(identifier: String, logLevel: Logger.Level) {
        self.identifier = identifier
        self.logLevel = logLevel
        identifierField = JournalDatagram.identifierField(identifier)
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        let fields = fields(of: event)
        let entry = JournalEntry(
            level: event.level, message: "\(event.message)", metadata: fields, identifier: identifier)
        if Self.send(entry) { return }
        var fallback = StandardErrorLogHandler(style: .journal, logLevel: logLevel)
        fallback.metadata = metadata
        fallback.metadataProvider = metadataProvider
        fallback.log(event: event)
    }

    package func log(record: LogRecord) {
        if JournalDatagram(record: record, identifierField: identifierField).send() { return }
        StandardErrorLogHandler(style: .journal, logLevel: logLevel).log(record: record)
    }

    /// Sends one record; false if the journal refused it. Each field is its own iovec, so a value's bytes are
    /// never parsed for `NAME=` (sd_journal_sendv frames a value holding a newline by its length).
    package static func send(_ entry: JournalEntry) -> Bool {
        let encoded = entry.encodedFields
        // One buffer for every field, each iovec pointing into it.
        var bytes = encoded.flatMap { $0 }
        return bytes.withUnsafeMutableBytes { buffer -> Bool in
            var vectors: [iovec] = []
            vectors.reserveCapacity(encoded.count)
            var offset = 0
            for field in encoded {
                // `!`: the buffer holds at least `MESSAGE=`, so it has an address.
                vectors.append(iovec(iov_base: buffer.baseAddress! + offset, iov_len: field.count))
                offset += field.count
            }
            return sd_journal_sendv(vectors, Int32(vectors.count)) >= 0
        }
    }

    /// Whether to log natively: stderr is the journal's stream and the journal's socket is there.
    package static func journalIsThere(environment: [String: String], socketPath: String = socketPath) -> Bool {
        guard StandardErrorLogHandler.standardErrorIsJournal(environment: environment) else { return false }
        var status = stat()
        return stat(socketPath, &status) == 0 && (status.st_mode & S_IFMT) == S_IFSOCK
    }
}
