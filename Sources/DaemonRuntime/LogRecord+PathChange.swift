// SPDX-License-Identifier: Apache-2.0
import PathModel

extension LogRecord {
    /// A path change's record: "path changed cause=kernel: route on eth0 path=satisfied via eth0,wlan0 (expensive)",
    /// with the path's status, cost and first interface and the cause's kind as journal fields. The cause's words
    /// and the path's summary are spelled into the record's bytes.
    package static func pathChanged(_ path: Path, cause: PathChangeCause?) -> LogRecord {
        var record = LogRecord(.pathChanged, level: .info, message: "path changed")
        record.show("cause") { bytes in
            guard let cause else { return bytes.appendUTF8("unknown") }
            var words = ByteWords()
            swap(&words.bytes, &bytes)
            cause.spell(into: &words)
            swap(&words.bytes, &bytes)
        }
        record.show("path") { appendSummary(of: path, to: &$0) }
        record.field(.status, path.status.rawValue)
        record.field(.expensive, constant: path.isExpensive ? "yes" : "no")
        record.field(.constrained, constant: path.isConstrained ? "yes" : "no")
        record.field(.cause, (cause?.kind ?? .unspecified).rawValue)
        if let first = path.availableInterfaces.first { record.field(.interface, first.name) }
        return record
    }

    /// "satisfied via eth0,wlan0 (expensive)" or "unsatisfied: noCarrier".
    static func appendSummary(of path: Path, to bytes: inout [UInt8]) {
        switch path.status {
        case .satisfied:
            bytes.appendUTF8("satisfied via ")
            for (position, interface) in path.availableInterfaces.enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                bytes.appendUTF8(interface.name)
            }
            if path.isExpensive { bytes.appendUTF8(" (expensive)") }
        case .unsatisfied:
            bytes.appendUTF8("unsatisfied: ")
            bytes.appendUTF8(path.unsatisfiedReason?.rawValue ?? "unknown")
        }
    }
}

/// A cause's words appended to bytes.
private struct ByteWords: CauseWordsSink {
    var bytes: [UInt8] = []

    mutating func append(_ text: String) { bytes.appendUTF8(text) }

    mutating func append(constant text: StaticString) { bytes.appendUTF8(text) }
}
