// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import StateFiles

/// The path history in the state directory: `history.jsonl`, a header line and then one io.pathmond.HistoryEntry
/// per line, oldest first (the Varlink field names, so `jq` reads it).
///
/// New entries are appended as whole lines (`append`); now and then the file is compacted, rewritten whole and
/// atomically with only the entries the history keeps (`write`: temporary file, then rename). A crash during an
/// append can leave the last line cut short: loading drops that line, keeps the rest and says so (the file is
/// rewritten before the next append). A file that cannot otherwise be read whole is set aside as
/// `history.jsonl.corrupt-<UTC time>`, like a damaged policy file, and the entries that could be read are kept.
///
/// Durability: `append` ends with fdatasync, and a compaction syncs the new file and its directory entry before it
/// returns, so what the writer has written survives a power cut. The writer thread appends at most once a second
/// (`StateWriters`), so a crash loses at most the entries of its last second; a clean stop appends everything.
struct HistoryFile: Sendable {
    /// What the first line says; a file of another format or a newer version is set aside, not guessed at.
    struct Header: Codable, Sendable, Hashable {
        var format: String
        var version: Int
    }

    static let header = Header(format: "pathmond-history", version: 1)
    static let fileName = "history.jsonl"
    /// The file is compacted once it holds more than this many times the entries the history keeps: appends stay
    /// cheap, and the file stays within a small multiple of the bound.
    static let compactionFactor = 2
    /// Twice 100,000 entries (the most the configuration allows) at about 600 bytes each, with room.
    static let maximumFileSize = 192 << 20
    /// The longest line an entry may take. The daemon bounds what it records (`PathHistoryEntry.bounded`) well
    /// under it; a longer line is damage, and so is more than this after the last newline (an append cut short
    /// leaves part of one line).
    static let maximumLineSize = 16 * 1024
    /// The largest sequence number read: 2^53 - 1, the largest integer a JSON reader holds exactly. The daemon
    /// counts up by one from the newest entry, so from any sequence read the count cannot wrap.
    static let maximumSequence: UInt64 = (1 << 53) - 1

    let path: String

    init(stateDirectory: String) {
        path = (stateDirectory.hasSuffix("/") ? stateDirectory : stateDirectory + "/") + Self.fileName
    }

    /// What loading found.
    struct Loaded: Sendable {
        var entries: [PathHistoryEntry]
        /// Why the file was not used whole, and where it went; nil when it was whole or missing.
        var problem: String?
        /// A last line cut short by an interrupted append, dropped, in words; the file stays where it is.
        var tornTail: String?
        /// How many entries the file holds, if new ones may be appended to it as it is; nil when it must first be
        /// written whole (missing, set aside, cut short, or not ending with a whole line).
        var appendableEntries: Int?
        /// A newer pathmond wrote the file: it is left where it is, as it is, and never written (like a newer
        /// policy.json); this daemon's history lives in memory only.
        var isNewerVersion = false
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
        let decoded = Self.decode(bytes)
        if let version = decoded.newerVersion {
            let problem =
                "history file \(path) has format version \(version), written by a newer pathmond: it is left as it "
                + "is and not written; this run keeps its history in memory only (upgrade pathmond, or move the "
                + "file away and restart to start a new one)"
            return Loaded(entries: [], problem: problem, isNewerVersion: true)
        }
        let entries = decoded.entries
        if let first = decoded.problems.first {
            let more = decoded.problems.count > 1 ? " (and \(decoded.problems.count - 1) more problems)" : ""
            let kept = "; \(entries.count) entries were kept"
            return Loaded(entries: entries, problem: setAside(because: first + more + kept))
        }
        var loaded = Loaded(entries: entries, appendableEntries: decoded.endsWithWholeLine ? entries.count : nil)
        if decoded.tornBytes > 0 {
            loaded.tornTail =
                "history file \(path): its last line was cut short (\(decoded.tornBytes) bytes; an append "
                + "interrupted by a crash, a power cut or a full disk) and is dropped; the \(entries.count) entries "
                + "before it are kept, and the file is rewritten without it; "
                + copyAside(bytes.suffix(decoded.tornBytes), as: "torn")
        }
        return loaded
    }

    /// Replaces the file with these entries (a compaction or a repair), atomically and synced. Blocks on disk I/O:
    /// only the state writer's thread calls it (and the daemon's stop, when that thread never started).
    func write(_ entries: [PathHistoryEntry]) throws(StateFileError) {
        try StateFileWriter.replace(path, with: Self.encode(entries), mode: 0o600, durable: true)
    }

    /// Adds entries at the end of the file as whole lines, in one write(2) with O_APPEND, then fdatasync. The file
    /// must exist and end with a whole line: a missing one fails (ENOENT), and the caller writes it whole, header
    /// first. A failed write is cut back off, so that the file keeps ending with a whole line if it can. Blocks on
    /// disk I/O, like `write`.
    func append(_ entries: [PathHistoryEntry]) throws(StateFileError) {
        try StreamedReplyWriter.withHistoryLines(entries) { (lines) throws(StateFileError) in
            try StateFileWriter.append(lines, to: path)
        }
    }

    /// Keeps bytes about to be dropped in a file of their own beside the history (`history.jsonl.torn-<UTC time>`),
    /// so that nothing is deleted without a copy; says where, or why not.
    private func copyAside(_ bytes: ArraySlice<UInt8>, as kind: String) -> String {
        let destination = "\(path).\(kind)-\(FileSystem.timestamp())"
        do {
            try StateFileWriter.replace(destination, with: Array(bytes), mode: 0o600, durable: true)
            return "its bytes were kept as \(destination)"
        } catch {
            return "its bytes could not be kept (\(error))"
        }
    }

    /// Renames the file out of the way and says so; if even that fails, says that.
    private func setAside(because reason: String) -> String {
        let destination = "\(path).corrupt-\(FileSystem.timestamp())"
        do throws(StateFileError) {
            try FileSystem.rename(path, over: destination)
        } catch {
            let failure = StateFileError.message(for: error.errno)
            return "history file \(path) not used: \(reason); it could not be set aside (\(failure))"
        }
        return "history file \(path) not used: \(reason); it was set aside as \(destination)"
    }
}
