// SPDX-License-Identifier: Apache-2.0
import Logging
import PathProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// Log lines on stderr, one write(2) each, in one of two styles:
/// - `.journal` when stderr is the journal's stream: each line starts with its syslog priority (`<3>` for an
///   error), which journald reads off the line (SyslogLevelPrefix=), and carries no timestamp, since the journal
///   records its own. So `journalctl -p err -u pathmond` shows exactly pathmond's errors.
/// - `.terminal` otherwise: an RFC 3339 UTC timestamp with microseconds and the level in words.
///
/// Every path change is logged, so a line is on the event path: it is formatted by hand into bytes (swift-log's
/// StreamLogHandler formats its timestamp through the C library's time zone code and took a tenth of the CPU of
/// a path change).
package struct StandardErrorLogHandler: RecordLogHandler {
    package enum Style: Sendable {
        case journal
        case terminal
    }

    package var style: Style
    package var logLevel: Logger.Level = .info
    package var metadata: Logger.Metadata = [:]
    package var metadataProvider: Logger.MetadataProvider?

    package init(style: Style, logLevel: Logger.Level = .info) {
        self.style = style
        self.logLevel = logLevel
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var line = start(event.level)
        // A record's journal fields (MESSAGE_ID=, PATHMOND_STATUS=, …) are for the native protocol; on stderr
        // the message says what they say, and a person reads no IDs.
        Self.appendLine(
            message: "\(event.message)", metadata: fields(of: event), skippingJournalFields: true, to: &line)
        writeToStandardError(line)
    }

    /// The line's start: the priority for the journal, the time and level for a terminal.
    private func start(_ level: Logger.Level) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(192)
        switch style {
        case .journal: Self.appendPriority(of: level, to: &line)
        case .terminal:
            Self.appendTimestamp(Self.now(), to: &line)
            line.append(UInt8(ascii: " "))
            line += level.rawValue.utf8
            line += ": ".utf8
        }
        return line
    }

    /// `message key=value ...\n` for a record: what `appendLine` writes for its metadata.
    package static func appendLine(of record: LogRecord, to bytes: inout [UInt8]) {
        record.appendLine(to: &bytes)
        bytes.append(UInt8(ascii: "\n"))
    }

    package func log(record: LogRecord) {
        var line = start(record.level)
        Self.appendLine(of: record, to: &line)
        writeToStandardError(line)
    }

    /// A journal line: `<PRIORITY>message key=value ...`.
    package static func line(level: Logger.Level, message: String, metadata: Logger.Metadata) -> String {
        var line: [UInt8] = []
        appendPriority(of: level, to: &line)
        appendLine(message: message, metadata: metadata, skippingJournalFields: false, to: &line)
        return String(decoding: line, as: UTF8.self)
    }

    /// `message key=value ...\n`, keys sorted, on one line: journald would start a new entry, without a priority,
    /// at every newline, and a terminal reader greps lines, so line breaks inside become spaces. With
    /// `skippingJournalFields`, the keys that are journal field names are left out (what the stderr handler and
    /// the journal's MESSAGE= show, the fields being sent apart).
    package static func appendLine(
        message: String, metadata: Logger.Metadata, skippingJournalFields: Bool, to bytes: inout [UInt8]
    ) {
        appendOneLine(message, to: &bytes)
        // One walk of the table, the pairs kept with their values: left out before sorting (a record's journal
        // fields are most of its keys), and never looked up again (a path change's line hashed every key twice).
        var shown: [(key: String, value: Logger.MetadataValue)] = []
        shown.reserveCapacity(skippingJournalFields ? 2 : metadata.count)
        for pair in metadata where !skippingJournalFields || !JournalEntry.isJournalFieldName(pair.key) {
            shown.append(pair)
        }
        shown.sort { $0.key < $1.key }
        for (key, value) in shown {
            bytes.append(UInt8(ascii: " "))
            appendOneLine(key, to: &bytes)
            bytes.append(UInt8(ascii: "="))
            switch value {
            case .string(let value): appendOneLine(value, to: &bytes)
            case let value: appendOneLine("\(value)", to: &bytes)
            }
        }
        bytes.append(UInt8(ascii: "\n"))
    }

    /// `<6>`: the priority journald reads off the line.
    private static func appendPriority(of level: Logger.Level, to bytes: inout [UInt8]) {
        // Three appends, not an array literal: this runs for every line, and a literal is an allocation.
        bytes.append(UInt8(ascii: "<"))
        bytes.append(UInt8(ascii: "0") + UInt8(priority(of: level)))
        bytes.append(UInt8(ascii: ">"))
    }

    /// syslog(3) priorities: LOG_CRIT 2 … LOG_DEBUG 7.
    package static func priority(of level: Logger.Level) -> Int {
        switch level {
        case .critical: return 2
        case .error: return 3
        case .warning: return 4
        case .notice: return 5
        case .info: return 6
        case .debug, .trace: return 7
        }
    }

    /// The wall clock now.
    package static func now() -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return now
    }

    /// `2026-11-23T14:46:31.123456Z`: UTC, so no time zone database is read, and digits written by hand.
    package static func timestamp(_ time: timespec) -> String {
        var bytes: [UInt8] = []
        appendTimestamp(time, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func appendTimestamp(_ time: timespec, to bytes: inout [UInt8]) {
        var seconds = time_t(time.tv_sec)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        // Written into a stamp's room on the stack, then appended once: appended digit by digit, with a
        // uniqueness check each, the stamp cost more than the rest of a path change's line.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 27) { stamp in
            func digits(_ value: Int, _ width: Int, at start: Int) {
                var rest = value
                for position in stride(from: start + width - 1, through: start, by: -1) {
                    stamp[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
            }
            digits(Int(parts.tm_year) + 1900, 4, at: 0)
            stamp[4] = UInt8(ascii: "-")
            digits(Int(parts.tm_mon) + 1, 2, at: 5)
            stamp[7] = UInt8(ascii: "-")
            digits(Int(parts.tm_mday), 2, at: 8)
            stamp[10] = UInt8(ascii: "T")
            digits(Int(parts.tm_hour), 2, at: 11)
            stamp[13] = UInt8(ascii: ":")
            digits(Int(parts.tm_min), 2, at: 14)
            stamp[16] = UInt8(ascii: ":")
            digits(Int(parts.tm_sec), 2, at: 17)
            stamp[19] = UInt8(ascii: ".")
            digits(Int(time.tv_nsec) / 1000, 6, at: 20)
            stamp[26] = UInt8(ascii: "Z")
            bytes.append(contentsOf: UnsafeBufferPointer(stamp))
        }
    }

    /// The text's UTF-8 on one line: CR and LF as spaces (journald splits entries at LF only), every other
    /// character a terminal would act on or hide (ESC, BEL, C1, bidirectional and invisible ones, which an
    /// interface name or an SSID may hold) written as the visible escape pathctl prints (`HumanText`), so that
    /// `journalctl` shows a hostile name as it is instead of running it.
    private static func appendOneLine(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendOneLine($0, to: &bytes) }
    }

    /// `appendOneLine` for text's UTF-8 bytes.
    package static func appendOneLine(_ utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        // Printable ASCII but the backslash (HumanText's escape character) is written as it is: every name and
        // number pathmond logs on the event path, so the scalar-by-scalar way below is for the rare other text.
        // Checked and copied as one buffer: the view's own iteration cost a dozen instructions a byte.
        if isPlainLine(utf8) {
            bytes.append(contentsOf: utf8)
            return
        }
        var line = String.UnicodeScalarView()
        for scalar in String(decoding: utf8, as: UTF8.self).unicodeScalars {
            line.append(scalar == "\n" || scalar == "\r" ? " " : scalar)
        }
        bytes += HumanText.escaped(String(line)).utf8
    }

    /// Whether UTF-8 text is printable ASCII without a backslash, so written as it is: eight bytes at a time
    /// (`PlainBytes`; byte by byte it cost five instructions a byte, three pieces of every path change's journal line).
    @inline(__always)
    package static func isPlainLine(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        PlainBytes.none(of: utf8, belowSpaceOr: 0x7F, 0x5C, asciiOnly: true)
    }

    /// One write(2) per line, so lines of concurrent loggers never interleave.
    private func writeToStandardError(_ line: [UInt8]) {
        // Read in place: a mutable view of the caller's array would copy it.
        line.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(STDERR_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }  // stderr gone: nothing else to tell.
                offset += written
            }
        }
    }

    /// True when stderr is the journal's stream: `$JOURNAL_STREAM` names its device and inode (systemd.exec(5)).
    /// A daemon started by hand from a unit's shell inherits the variable but not the stream, hence the check.
    package static func standardErrorIsJournal(environment: [String: String]) -> Bool {
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(STDERR_FILENO, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }
}
