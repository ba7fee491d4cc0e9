import PathModel
import PathProtocol
import PolicyStore

#if canImport(Glibc)
    import Glibc
#endif

/// The path history in the state directory: `history.jsonl`, a header line and then one io.pathmond.HistoryEntry
/// per line, oldest first (the Varlink field names, so `jq` reads it). Rewritten whole and atomically (temporary
/// file, then rename): a crash leaves the old file or the new one. A file that cannot be read whole is set aside as
/// `history.jsonl.corrupt-<UTC time>`, like a damaged policy file, and the entries that could be read are kept.
struct HistoryFile: Sendable {
    /// What the first line says; a file of another format or a newer version is set aside, not guessed at.
    struct Header: Codable, Sendable, Hashable {
        var format: String
        var version: Int
    }

    static let header = Header(format: "pathmond-history", version: 1)
    static let fileName = "history.jsonl"
    /// 100,000 entries (the most the configuration allows) at about 600 bytes each, with room.
    static let maximumFileSize = 96 << 20

    let path: String

    init(stateDirectory: String) {
        path = (stateDirectory.hasSuffix("/") ? stateDirectory : stateDirectory + "/") + Self.fileName
    }

    /// What loading found.
    struct Loaded: Sendable {
        var entries: [PathHistoryEntry]
        /// Why the file was not used whole, and where it went; nil when it was whole or missing.
        var problem: String?
    }

    /// The stored entries, oldest first. Never fails: a missing file is an empty history; a damaged one is set
    /// aside and what could be read from it is returned, with the problem in words.
    func load() -> Loaded {
        let bytes: [UInt8]
        do {
            bytes = try StateFileReader.read(path, limit: Self.maximumFileSize)
        } catch {
            if case .system(let number) = error, number == .noSuchFileOrDirectory { return Loaded(entries: []) }
            return Loaded(entries: [], problem: setAside(because: "it cannot be read: \(error)"))
        }
        let (entries, problems) = Self.decode(bytes)
        guard let first = problems.first else { return Loaded(entries: entries) }
        let more = problems.count > 1 ? " (and \(problems.count - 1) more problems)" : ""
        let kept = "; \(entries.count) entries were kept"
        return Loaded(entries: entries, problem: setAside(because: first + more + kept))
    }

    /// Entries from the file's bytes, and a sentence per line that could not be used.
    static func decode(_ bytes: [UInt8]) -> (entries: [PathHistoryEntry], problems: [String]) {
        let codec = VarlinkCodec()
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        guard let headerLine = lines.first else { return ([], bytes.isEmpty ? [] : ["it is empty"]) }
        guard let header = try? codec.decode(Header.self, from: Array(headerLine)),
            header.format == Self.header.format
        else { return ([], ["line 1 is not a pathmond history header"]) }
        guard header.version <= Self.header.version else {
            return ([], ["it has format version \(header.version), written by a newer pathmond"])
        }
        var entries: [PathHistoryEntry] = []
        var problems: [String] = []
        for (offset, line) in lines.dropFirst().enumerated() {
            let number = offset + 2
            do {
                let entry = try codec.decode(WireHistoryEntry.self, from: Array(line)).entry()
                if let last = entries.last, entry.sequence <= last.sequence {
                    problems.append("line \(number): sequence \(entry.sequence) does not follow \(last.sequence)")
                    continue
                }
                entries.append(entry)
            } catch {
                problems.append("line \(number): \(error)")
            }
        }
        return (entries, problems)
    }

    /// The file's bytes for these entries.
    static func encode(_ entries: [PathHistoryEntry]) -> [UInt8] {
        let codec = VarlinkCodec()
        var bytes = codec.encode(header)
        bytes[bytes.count - 1] = UInt8(ascii: "\n")
        bytes.reserveCapacity(entries.count * 450)
        for entry in entries {
            bytes += StreamedReplyWriter.historyEntry(WireHistoryEntry(entry))
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }

    /// Replaces the file with these entries, atomically. Blocks on disk I/O: the runtime calls it off the event
    /// path (at most once a second, and on stop).
    func write(_ entries: [PathHistoryEntry]) throws(AtomicFileError) {
        try AtomicFile.write(Self.encode(entries), to: path, mode: 0o600)
    }

    /// Renames the file out of the way and says so; if even that fails, says that.
    private func setAside(because reason: String) -> String {
        let destination = "\(path).corrupt-\(AtomicFile.timestamp())"
        guard rename(path, destination) == 0 else {
            let failure = String(cString: strerror(errno))
            return "history file \(path) not used: \(reason); it could not be set aside (\(failure))"
        }
        return "history file \(path) not used: \(reason); it was set aside as \(destination)"
    }
}
