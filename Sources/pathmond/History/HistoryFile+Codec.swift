// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol

/// history.jsonl's bytes: a header line, then one entry per line, each line ending with a newline.
extension HistoryFile {
    /// What a file's bytes hold.
    struct Decoded: Sendable {
        var entries: [PathHistoryEntry] = []
        /// A sentence per line that could not be used: the file is damaged.
        var problems: [String] = []
        /// The length of a last line without its newline that could not be read: an append cut short, not
        /// damage. 0 when there is none.
        var tornBytes = 0
        /// Whether the bytes end with a newline, so that lines may be appended as they are.
        var endsWithWholeLine = true
        /// The header says a newer pathmond wrote the file: nothing is read from it, and it must stay as it is.
        var newerVersion: Int?
        /// Strings and name lists seen so far, so that equal ones share one storage: 100,000 entries of one boot
        /// name a few interfaces, and decoded apart they cost a heap block each.
        fileprivate var strings: [String: String] = [:]
        fileprivate var lists: [[String]: [String]] = [:]
        fileprivate var tables: [[PathChangeCause.KernelTable]: [PathChangeCause.KernelTable]] = [:]
    }

    /// Entries from the file's bytes, with what could not be used.
    static func decode(_ bytes: [UInt8]) -> Decoded {
        let codec = VarlinkCodec()
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        // What follows the last newline: nothing in a whole file, else a line an append did not finish.
        var unfinished = lines.removeLast()
        var decoded = Decoded(endsWithWholeLine: unfinished.isEmpty)
        // The header is written only with the whole file, atomically: one without its newline is read as it is.
        if lines.isEmpty {
            // An empty file has no header to append after.
            decoded.endsWithWholeLine = false
            guard !unfinished.isEmpty else { return decoded }
            lines = [unfinished]
            unfinished = []
        }
        guard let header = try? codec.decode(Header.self, from: Array(lines[0])), header.format == Self.header.format
        else {
            decoded.problems = ["line 1 is not a pathmond history header"]
            return decoded
        }
        guard header.version <= Self.header.version else {
            decoded.newerVersion = header.version
            return decoded
        }
        for (offset, line) in lines.dropFirst().enumerated() {
            // One entry is a few hundred bytes and the daemon writes none longer than the bound: a longer line is
            // damage, and it must not stand in for the entries around it.
            guard line.count <= Self.maximumLineSize else {
                decoded.problems.append("line \(offset + 2): \(line.count) bytes, longer than any entry")
                continue
            }
            do {
                try decoded.add(line, number: offset + 2, codec: codec)
            } catch {
                decoded.problems.append("line \(offset + 2): \(error)")
            }
        }
        if unfinished.count > Self.maximumLineSize {
            // An interrupted append leaves part of one line: more than a whole entry after the last newline is
            // something else, and the file is kept aside with it rather than cut.
            decoded.endsWithWholeLine = false
            decoded.problems.append(
                "\(unfinished.count) bytes after the last whole line, more than an append cut short leaves")
        } else if !unfinished.isEmpty {
            // Kept if it reads whole (only its newline is missing), else dropped: either way not damage.
            let before = decoded.problems.count
            do {
                try decoded.add(unfinished, number: lines.count + 1, codec: codec)
            } catch {
                decoded.tornBytes = unfinished.count
            }
            if decoded.problems.count > before {
                decoded.problems.removeLast(decoded.problems.count - before)
                decoded.tornBytes = unfinished.count
            }
        }
        return decoded
    }

    /// The file's bytes for these entries.
    static func encode(_ entries: [PathHistoryEntry]) -> [UInt8] {
        let codec = VarlinkCodec()
        var bytes = codec.encode(header)
        bytes[bytes.count - 1] = UInt8(ascii: "\n")
        bytes += encodeLines(entries)
        return bytes
    }

    /// One line per entry, each ending with a newline: what `append` adds. Written straight from the entries,
    /// byte for byte what VarlinkCodec writes, without JSONEncoder's cost.
    static func encodeLines(_ entries: [PathHistoryEntry]) -> [UInt8] {
        StreamedReplyWriter.historyLines(entries)
    }
}

extension HistoryFile.Decoded {
    /// Adds one entry line; a sequence that does not follow the previous one is a problem, said in words.
    fileprivate mutating func add(_ line: ArraySlice<UInt8>, number: Int, codec: VarlinkCodec) throws {
        var entry = try codec.decode(WireHistoryEntry.self, from: Array(line)).entry()
        entry.bootID = shared(entry.bootID)
        entry.before.interfaces = shared(entry.before.interfaces)
        entry.after.interfaces = shared(entry.after.interfaces)
        entry.cause.interfaces = shared(entry.cause.interfaces)
        if !entry.cause.kernelTables.isEmpty {
            if let seen = tables[entry.cause.kernelTables] {
                entry.cause.kernelTables = seen
            } else {
                tables[entry.cause.kernelTables] = entry.cause.kernelTables
            }
        }
        entry.cause.detail = entry.cause.detail.map { shared($0) }
        entry.cause.network = entry.cause.network.map { shared($0) }
        guard entry.sequence <= HistoryFile.maximumSequence else {
            // Far beyond what any daemon reaches (a change a microsecond for 285 years); next to it the sequence
            // would wrap, and JSON readers (jq) no longer hold such numbers exactly.
            problems.append("line \(number): sequence \(entry.sequence) is beyond \(HistoryFile.maximumSequence)")
            return
        }
        if let last = entries.last, entry.sequence <= last.sequence {
            problems.append("line \(number): sequence \(entry.sequence) does not follow \(last.sequence)")
            return
        }
        entries.append(entry)
    }
}

extension HistoryFile.Decoded {
    /// The string seen before that equals this one, or this one, kept.
    fileprivate mutating func shared(_ string: String) -> String {
        if let seen = strings[string] { return seen }
        if strings.count < 4096 { strings[string] = string }
        return string
    }

    fileprivate mutating func shared(_ list: [String]) -> [String] {
        guard !list.isEmpty else { return [] }
        if let seen = lists[list] { return seen }
        if lists.count < 4096 { lists[list] = list }
        return list
    }
}
