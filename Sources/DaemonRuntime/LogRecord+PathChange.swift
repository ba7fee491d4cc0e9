// SPDX-License-Identifier: Apache-2.0
import PathModel

extension LogRecord {
    /// A path change's record: "path changed cause=kernel: route on eth0 path=satisfied via eth0,wlan0 (expensive)",
    /// with the path's status, cost and first interface and the cause's kind as journal fields. The cause's words
    /// and the path's summary are spelled into the record's bytes.
    package static func pathChanged(_ path: Path, cause: PathChangeCause?) -> LogRecord {
        var record = LogRecord(.pathChanged, level: .info, message: "path changed")
        record.show("cause") { bytes in
            guard let cause else { return appendConstant("unknown", to: &bytes) }
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
            appendConstant("satisfied via ", to: &bytes)
            for (position, interface) in path.availableInterfaces.enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                append(interface.name, to: &bytes)
            }
            if path.isExpensive { appendConstant(" (expensive)", to: &bytes) }
        case .unsatisfied:
            appendConstant("unsatisfied: ", to: &bytes)
            append(path.unsatisfiedReason?.rawValue ?? "unknown", to: &bytes)
        }
    }

    private static func appendConstant(_ text: StaticString, to bytes: inout [UInt8]) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private static func append(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }
}

/// A cause's words appended to bytes.
private struct ByteWords: CauseWordsSink {
    var bytes: [UInt8] = []

    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    mutating func append(constant text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }
}
