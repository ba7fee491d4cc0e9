// SPDX-License-Identifier: Apache-2.0
import PathModel

/// History entries written straight from the model into bytes: a line of the history file on every path change,
/// a `--follow` reply, a GetHistory reply's encoding. No `WireHistoryEntry` is made on the way (its strings, the
/// cause's table names and words cost more than the writing), the cause's words are spelled into the JSON string
/// as they come, and the names the model spells in code (status, reasons, kinds, tables) are constant bytes.
/// Byte for byte what `VarlinkCodec` writes for `WireHistoryEntry(entry)`, which the tests check.
extension StreamedReplyWriter {
    /// One io.pathmond.HistoryEntry as a JSON object, without a terminator.
    public static func historyEntry(_ entry: PathHistoryEntry) -> [UInt8] {
        var out = JSONBytes()
        write(entry, to: &out)
        return out.bytes
    }

    /// `{"continues":true,"parameters":{"entries":[ENTRY]}}` and its NUL: one new entry to a `--follow` stream.
    public static func historyReply(_ entry: PathHistoryEntry) -> [UInt8] {
        var out = JSONBytes()
        out.raw("{\"continues\":true,\"parameters\":{\"entries\":[")
        write(entry, to: &out)
        out.raw("]}}")
        return out.terminated()
    }

    /// The entries' lines, each ending with a newline: what the history file appends.
    public static func historyLines(_ entries: [PathHistoryEntry]) -> [UInt8] {
        historyEntries(entries[...], separator: "\n") { _ in }.bytes
    }

    /// `historyLines` where they are written, for the length of `body`: appended to the file from there, not
    /// copied into an array first.
    public static func withHistoryLines<Result, Failure: Error>(
        _ entries: [PathHistoryEntry], _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let out = historyEntries(entries[...], separator: "\n") { _ in }
        return try out.withBytes(body)
    }

    /// The entries' JSON objects back to back; `ended` is told where each ends (its offset in the bytes).
    public static func historyEntries(_ entries: ArraySlice<PathHistoryEntry>, ended: (Int) -> Void) -> [UInt8] {
        historyEntries(entries, separator: "", ended: ended).bytes
    }

    /// An entry takes 400 to 600 bytes: room for a few, grown as needed. Entries are read where they are, through
    /// the buffer: a copy of one (what the array's subscript gave) is a retain and a release of each of its strings
    /// and lists.
    private static func historyEntries(
        _ entries: ArraySlice<PathHistoryEntry>, separator: StaticString, ended: (Int) -> Void
    ) -> JSONBytes {
        var out = JSONBytes(capacity: min(entries.count, 64) * 640)
        entries.withUnsafeBufferPointer { entries in
            for index in entries.indices {
                write(entries[index], to: &out)
                out.raw(separator)
                ended(out.count)
            }
        }
        return out
    }

    // Keys in sorted order, as VarlinkCodec writes them (byte order).

    private static func write(_ entry: PathHistoryEntry, to out: inout JSONBytes) {
        out.raw("{\"after\":")
        write(entry.after, to: &out)
        out.raw(",\"before\":")
        write(entry.before, to: &out)
        out.raw(",\"bootID\":")
        out.quoted(entry.bootID)
        out.raw(",\"cause\":")
        write(entry.cause, to: &out)
        out.raw(",\"monotonicUsec\":")
        out.decimal(entry.monotonicMicroseconds)
        out.raw(",\"realtimeUsec\":")
        out.decimal(entry.wallMicroseconds)
        out.raw(",\"sequence\":")
        out.decimal(entry.sequence)
        out.raw("}")
    }

    private static func write(_ summary: PathSummary, to out: inout JSONBytes) {
        out.raw("{\"interfaces\":")
        writeNames(summary.interfaces, to: &out)
        // The flags and the status between them as one constant piece each.
        switch (summary.isConstrained, summary.isExpensive) {
        case (false, false): out.raw(",\"isConstrained\":false,\"isExpensive\":false,\"status\":")
        case (false, true): out.raw(",\"isConstrained\":false,\"isExpensive\":true,\"status\":")
        case (true, false): out.raw(",\"isConstrained\":true,\"isExpensive\":false,\"status\":")
        case (true, true): out.raw(",\"isConstrained\":true,\"isExpensive\":true,\"status\":")
        }
        out.raw(summary.status.quotedName)
        switch (summary.supportsIPv4, summary.supportsIPv6) {
        case (false, false): out.raw(",\"supportsIPv4\":false,\"supportsIPv6\":false")
        case (false, true): out.raw(",\"supportsIPv4\":false,\"supportsIPv6\":true")
        case (true, false): out.raw(",\"supportsIPv4\":true,\"supportsIPv6\":false")
        case (true, true): out.raw(",\"supportsIPv4\":true,\"supportsIPv6\":true")
        }
        if let reason = summary.unsatisfiedReason {
            out.raw(",\"unsatisfiedReason\":")
            out.raw(reason.quotedName)
        }
        out.raw("}")
    }

    private static func write(_ cause: PathChangeCause, to out: inout JSONBytes) {
        out.raw("{\"description\":\"")
        cause.spell(into: &out)
        out.raw("\"")
        if let detail = cause.detail {
            out.raw(",\"detail\":")
            out.quoted(detail)
        }
        if let detection = cause.detection {
            out.raw(",\"detection\":")
            out.raw(detection.quotedName)
        }
        out.raw(",\"interfaces\":")
        writeNames(cause.interfaces, to: &out)
        if !cause.kernelTables.isEmpty {
            out.raw(",\"kernelTables\":[")
            for (position, table) in cause.kernelTables.enumerated() {
                if position > 0 { out.raw(",") }
                out.raw(table.quotedName)
            }
            out.raw("]")
        }
        out.raw(",\"kind\":")
        out.raw(cause.kind.quotedName)
        if let network = cause.network {
            out.raw(",\"network\":")
            out.quoted(network)
        }
        if let uid = cause.userID {
            out.raw(",\"uid\":")
            out.decimal(UInt64(uid))
        }
        out.raw("}")
    }

    private static func writeNames(_ names: [String], to out: inout JSONBytes) {
        out.raw("[")
        for (position, name) in names.enumerated() {
            if position > 0 { out.raw(",") }
            out.quoted(name)
        }
        out.raw("]")
    }
}
