// SPDX-License-Identifier: Apache-2.0
import PathModel

/// What one history entry may hold, so that its line stays far under `HistoryFile.maximumLineSize` whatever the
/// change: a batch of kernel events on ten thousand links names the first `maximumInterfaces` of them, and free
/// words are cut at `maximumTextBytes`. A bounded entry never makes a reply or a file line that hides the others.
enum HistoryEntryBounds {
    static let maximumInterfaces = 32
    static let maximumTextBytes = 512

    static func bounded(_ summary: PathSummary) -> PathSummary {
        guard summary.interfaces.count > maximumInterfaces else { return summary }
        var bounded = summary
        bounded.interfaces = Array(summary.interfaces.prefix(maximumInterfaces))
        return bounded
    }

    static func bounded(_ cause: consuming PathChangeCause) -> PathChangeCause {
        // Nearly every cause is within the bounds: returned as it is, not rebuilt field by field (each field set
        // is a release and a retain, on every path change).
        guard
            cause.interfaces.count > maximumInterfaces || cause.interfaceIndices.count > maximumInterfaces
                || (cause.detail?.utf8.count ?? 0) > maximumTextBytes
                || (cause.network?.utf8.count ?? 0) > maximumTextBytes
        else { return cause }
        var bounded = consume cause
        if bounded.interfaces.count > maximumInterfaces {
            bounded.interfaces = Array(bounded.interfaces.prefix(maximumInterfaces))
        }
        if bounded.interfaceIndices.count > maximumInterfaces {
            bounded.interfaceIndices = Array(bounded.interfaceIndices.prefix(maximumInterfaces))
        }
        bounded.detail = bounded.detail.map(clipped)
        bounded.network = bounded.network.map(clipped)
        return bounded
    }

    /// The text cut to at most `maximumTextBytes` of UTF-8 (an ellipsis included), at a character's end.
    static func clipped(_ text: String) -> String {
        guard text.utf8.count > maximumTextBytes else { return text }
        var end = text.utf8.index(text.utf8.startIndex, offsetBy: maximumTextBytes - 3)
        while end.samePosition(in: text) == nil { end = text.utf8.index(before: end) }
        return String(text[..<end]) + "…"
    }
}
