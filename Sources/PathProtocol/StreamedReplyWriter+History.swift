// SPDX-License-Identifier: Apache-2.0
extension StreamedReplyWriter {
    /// One io.pathmond.HistoryEntry as a JSON object, without a terminator: a line of the history file, written on
    /// every path change. Byte for byte what `VarlinkCodec` writes.
    public static func historyEntry(_ entry: WireHistoryEntry) -> [UInt8] {
        var out = JSONBytes()
        write(entry, to: &out)
        return out.bytes
    }

    /// `{"continues":true,"parameters":{"entries":[ENTRY]}}` and its NUL: one new entry to a `--follow` stream.
    public static func historyReply(_ entry: WireHistoryEntry) -> [UInt8] {
        var out = JSONBytes()
        out.raw("{\"continues\":true,\"parameters\":{\"entries\":[")
        write(entry, to: &out)
        out.raw("]}}")
        return out.terminated()
    }

    // Keys in sorted order, as VarlinkCodec writes them (byte order).

    private static func write(_ entry: WireHistoryEntry, to out: inout JSONBytes) {
        out.raw("{\"after\":")
        write(entry.after, to: &out)
        out.raw(",\"before\":")
        write(entry.before, to: &out)
        out.raw(",\"bootID\":")
        out.string(entry.bootID)
        out.raw(",\"cause\":")
        write(entry.cause, to: &out)
        out.raw(",\"monotonicUsec\":")
        out.integer(entry.monotonicUsec)
        out.raw(",\"realtimeUsec\":")
        out.integer(entry.realtimeUsec)
        out.raw(",\"sequence\":")
        out.integer(entry.sequence)
        out.raw("}")
    }

    private static func write(_ summary: WirePathSummary, to out: inout JSONBytes) {
        out.raw("{\"interfaces\":")
        out.strings(summary.interfaces)
        out.raw(",\"isConstrained\":")
        out.bool(summary.isConstrained)
        out.raw(",\"isExpensive\":")
        out.bool(summary.isExpensive)
        out.raw(",\"status\":")
        out.string(summary.status)
        out.raw(",\"supportsIPv4\":")
        out.bool(summary.supportsIPv4)
        out.raw(",\"supportsIPv6\":")
        out.bool(summary.supportsIPv6)
        if let reason = summary.unsatisfiedReason {
            out.raw(",\"unsatisfiedReason\":")
            out.string(reason)
        }
        out.raw("}")
    }

    private static func write(_ cause: WireChangeCause, to out: inout JSONBytes) {
        out.raw("{\"description\":")
        out.string(cause.description)
        if let detail = cause.detail {
            out.raw(",\"detail\":")
            out.string(detail)
        }
        if let detection = cause.detection {
            out.raw(",\"detection\":")
            out.string(detection)
        }
        out.raw(",\"interfaces\":")
        out.strings(cause.interfaces)
        if let tables = cause.kernelTables {
            out.raw(",\"kernelTables\":")
            out.strings(tables)
        }
        out.raw(",\"kind\":")
        out.string(cause.kind)
        if let network = cause.network {
            out.raw(",\"network\":")
            out.string(network)
        }
        if let uid = cause.uid {
            out.raw(",\"uid\":")
            out.integer(uid)
        }
        out.raw("}")
    }
}
