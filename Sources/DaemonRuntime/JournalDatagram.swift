// SPDX-License-Identifier: Apache-2.0
internal import CSystemd

#if canImport(Glibc)
    import Glibc
#endif

/// A record's journal fields, `NAME=value` each, sent as one iovec per field (sd_journal_sendv). What pathmond logs
/// as a unit on every path change: built as a `JournalEntry`, then encoded and flattened, the record was forty
/// arrays, 29,500 instructions a change, six times its stderr line (issue 41). The message and the fields every
/// record has are written into one buffer; the record's own fields are sent from where the record holds them,
/// already `NAME=value` (copied here with their names, they cost a path change 1,800 instructions). The fields
/// are `JournalEntry(record:identifier:)`'s, which the tests check, in the order written here: the journal keeps a
/// record's fields by name, whatever their order.
package struct JournalDatagram {
    /// MESSAGE, PRIORITY, SYSLOG_IDENTIFIER and MESSAGE_ID, one after another.
    private var head: [UInt8] = []
    /// Where the first three end in `head` (MESSAGE_ID ends at its end).
    private var headEnds = (message: 0, priority: 0, identifier: 0)
    /// The record, whose fields follow.
    private let record: LogRecord

    package init(record: LogRecord, identifier: String) {
        self.record = record
        head.reserveCapacity(256)
        name("MESSAGE")
        record.appendLine(to: &head)
        headEnds.message = head.count
        name("PRIORITY")
        head.append(UInt8(ascii: "0") + UInt8(StandardErrorLogHandler.priority(of: record.level)))
        headEnds.priority = head.count
        name("SYSLOG_IDENTIFIER")
        head.appendUTF8(identifier)
        headEnds.identifier = head.count
        name("MESSAGE_ID")
        head.appendUTF8(record.kind.messageID)
    }

    /// `NAME=`.
    private mutating func name(_ name: StaticString) {
        head.appendUTF8(name)
        head.append(UInt8(ascii: "="))
    }

    /// Each field's bytes, in the order sent (for the tests).
    package var fields: [[UInt8]] {
        var fields: [[UInt8]] = []
        forEachField { fields.append(Array($0)) }
        return fields
    }

    /// Each field's bytes in the order sent, read in place.
    private func forEachField(_ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        head.withUnsafeBufferPointer { head in
            var start = 0
            for end in [headEnds.message, headEnds.priority, headEnds.identifier, head.count] {
                body(UnsafeBufferPointer(rebasing: head[start..<end]))
                start = end
            }
        }
        record.withJournalFields { fields in
            for (_, named) in fields { body(named) }
        }
    }

    /// Sends the record; false if the journal refused it. A value holding a newline stays inside its field:
    /// sd_journal_sendv sends such a value in the protocol's length-prefixed form.
    package func send() -> Bool {
        head.withUnsafeBufferPointer { head in
            record.withJournalFields { fields in
                withUnsafeTemporaryAllocation(of: iovec.self, capacity: 4 + fields.maximumCount) { vectors in
                    var count = 0
                    // `!`: every field holds at least its `NAME=`, so it has an address.
                    func add(_ bytes: UnsafeBufferPointer<UInt8>) {
                        vectors.initializeElement(
                            at: count,
                            to: iovec(
                                iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress!), iov_len: bytes.count)
                        )
                        count += 1
                    }
                    add(UnsafeBufferPointer(rebasing: head[..<headEnds.message]))
                    add(UnsafeBufferPointer(rebasing: head[headEnds.message..<headEnds.priority]))
                    add(UnsafeBufferPointer(rebasing: head[headEnds.priority..<headEnds.identifier]))
                    add(UnsafeBufferPointer(rebasing: head[headEnds.identifier...]))
                    for (_, named) in fields { add(named) }
                    defer { vectors.prefix(count).deinitialize() }
                    return sd_journal_sendv(vectors.baseAddress, Int32(count)) >= 0
                }
            }
        }
    }
}
