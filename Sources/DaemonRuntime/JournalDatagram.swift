// SPDX-License-Identifier: Apache-2.0
internal import CSystemd

#if canImport(Glibc)
    import Glibc
#endif

/// A record's journal fields, `NAME=value` each, written back to back into one buffer and sent as one iovec per
/// field (sd_journal_sendv). What pathmond logs as a unit on every path change: built as a `JournalEntry`, then
/// encoded and flattened, the record was forty arrays, 29,500 instructions a change, six times its stderr line
/// (issue 41). Every name and value is copied as one buffer: a String's view appended byte by byte cost 200
/// instructions a field. The fields are `JournalEntry(record:identifier:)`'s, which the tests check, in the order
/// written here: the journal keeps a record's fields by name, whatever their order.
package struct JournalDatagram {
    /// The fields' bytes, one after another.
    private var bytes: [UInt8] = []
    /// Where each field ends in `bytes`.
    private var ends: [Int] = []

    package init(record: LogRecord, identifier: String) {
        bytes.reserveCapacity(512)
        ends.reserveCapacity(12)
        name("MESSAGE")
        record.appendLine(to: &bytes)
        ends.append(bytes.count)
        name("PRIORITY")
        bytes.append(UInt8(ascii: "0") + UInt8(StandardErrorLogHandler.priority(of: record.level)))
        ends.append(bytes.count)
        name("SYSLOG_IDENTIFIER")
        bytes.appendUTF8(identifier)
        ends.append(bytes.count)
        name("MESSAGE_ID")
        bytes.appendUTF8(record.kind.messageID)
        ends.append(bytes.count)
        record.forEachField { field, value in
            name(field.name)
            bytes.append(contentsOf: value)
            ends.append(bytes.count)
        }
    }

    /// `NAME=`.
    private mutating func name(_ name: StaticString) {
        bytes.appendUTF8(name)
        bytes.append(UInt8(ascii: "="))
    }

    /// Each field's bytes, in the order written (for the tests).
    package var fields: [[UInt8]] {
        zip([0] + ends.dropLast(), ends).map { Array(bytes[$0..<$1]) }
    }

    /// Sends the record; false if the journal refused it. A value holding a newline stays inside its field:
    /// sd_journal_sendv sends such a value in the protocol's length-prefixed form.
    package func send() -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            withUnsafeTemporaryAllocation(of: iovec.self, capacity: ends.count) { vectors in
                var start = 0
                for (position, end) in ends.enumerated() {
                    // `!`: the buffer holds at least `MESSAGE=`, so it has an address.
                    vectors.initializeElement(
                        at: position,
                        to: iovec(
                            iov_base: UnsafeMutableRawPointer(mutating: buffer.baseAddress! + start),
                            iov_len: end - start))
                    start = end
                }
                defer { vectors.deinitialize() }
                return sd_journal_sendv(vectors.baseAddress, Int32(ends.count)) >= 0
            }
        }
    }
}
