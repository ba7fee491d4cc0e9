import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// Log lines for journald on stderr: each starts with its syslog priority (`<3>` for an error), which journald
/// reads off the line (SyslogLevelPrefix=), and carries no timestamp, since the journal records its own. So
/// `journalctl -p err -u pathmond` shows exactly pathmond's errors.
struct JournalLogHandler: LogHandler {
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields = metadata
        if let provided = metadataProvider?.get() { fields.merge(provided) { _, new in new } }
        if let own = event.metadata { fields.merge(own) { _, new in new } }
        writeToStandardError(Self.line(level: event.level, message: "\(event.message)", metadata: fields))
    }

    /// `<PRIORITY>message key=value ...`, on one line: journald would start a new entry, without a priority, at
    /// every newline.
    static func line(level: Logger.Level, message: String, metadata: Logger.Metadata) -> String {
        var text = "<\(priority(of: level))>" + oneLine(message)
        for key in metadata.keys.sorted() {
            text += " \(key)=\(oneLine("\(metadata[key]!)"))"  // `!`: the key came from the dictionary.
        }
        return text + "\n"
    }

    /// syslog(3) priorities: LOG_CRIT 2 … LOG_DEBUG 7.
    static func priority(of level: Logger.Level) -> Int {
        switch level {
        case .critical: return 2
        case .error: return 3
        case .warning: return 4
        case .notice: return 5
        case .info: return 6
        case .debug, .trace: return 7
        }
    }

    private static func oneLine(_ text: String) -> String {
        text.contains(where: \.isNewline) ? String(text.map { $0.isNewline ? " " : $0 }) : text
    }

    /// One write(2) per line, so lines of concurrent loggers never interleave.
    private func writeToStandardError(_ line: String) {
        var bytes = Array(line.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes {
                write(STDERR_FILENO, $0.baseAddress! + offset, $0.count - offset)
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }  // stderr gone: nothing else to tell.
            offset += written
        }
    }

    /// True when stderr is the journal's stream: `$JOURNAL_STREAM` names its device and inode (systemd.exec(5)).
    /// A daemon started by hand from a unit's shell inherits the variable but not the stream, hence the check.
    static func standardErrorIsJournal(environment: [String: String]) -> Bool {
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(STDERR_FILENO, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }
}
