// SPDX-License-Identifier: Apache-2.0
internal import CSystemd

#if canImport(Glibc)
    import Glibc
#endif

/// A record's journal fields, `NAME=value` each, sent as one iovec per field (sd_journal_sendv). What pathmond logs
/// as a unit on every path change: built as a `JournalEntry`, then encoded and flattened, the record was forty
/// arrays, 29,500 instructions a change, six times its stderr line (issue 41). Nothing is copied to send it: the
/// MESSAGE field is the record's own line where it needs no escaping (`LogRecord.withJournalMessage`), its fields
/// are where the record holds them, PRIORITY and MESSAGE_ID are constant text, and SYSLOG_IDENTIFIER is written
/// once by the handler. Written into a buffer of their own, the four cost a path change 2,200 instructions. The
/// fields are `JournalEntry(record:identifier:)`'s, which the tests check, in the order written here: the journal
/// keeps a record's fields by name, whatever their order.
package struct JournalDatagram {
    /// The record, whose fields follow the four every record has.
    private let record: LogRecord
    /// `SYSLOG_IDENTIFIER=` and the program's name (`identifierField(_:)`).
    private let identifierField: [UInt8]

    package init(record: LogRecord, identifierField: [UInt8]) {
        self.record = record
        self.identifierField = identifierField
    }

    package init(record: LogRecord, identifier: String) {
        self.init(record: record, identifierField: Self.identifierField(identifier))
    }

    /// `SYSLOG_IDENTIFIER=identifier`, which a handler makes once.
    package static func identifierField(_ identifier: String) -> [UInt8] {
        var field: [UInt8] = []
        field.appendUTF8("SYSLOG_IDENTIFIER=")
        field.appendUTF8(identifier)
        return field
    }

    /// `PRIORITY=` and the syslog priority of a level.
    private static func priorityField(_ priority: Int) -> StaticString {
        switch priority {
        case 0: "PRIORITY=0"
        case 1: "PRIORITY=1"
        case 2: "PRIORITY=2"
        case 3: "PRIORITY=3"
        case 4: "PRIORITY=4"
        case 5: "PRIORITY=5"
        case 6: "PRIORITY=6"
        default: "PRIORITY=7"
        }
    }

    /// Each field's bytes, in the order sent (for the tests).
    package var fields: [[UInt8]] {
        withVectors { vectors in
            vectors.map { Array(UnsafeRawBufferPointer(start: $0.iov_base, count: $0.iov_len)) }
        }
    }

    /// Sends the record; false if the journal refused it. A value holding a newline stays inside its field:
    /// sd_journal_sendv sends such a value in the protocol's length-prefixed form.
    package func send() -> Bool {
        withVectors { vectors in sd_journal_sendv(vectors.baseAddress, Int32(vectors.count)) >= 0 }
    }

    /// The fields as iovecs, valid only inside `body`: MESSAGE, PRIORITY, SYSLOG_IDENTIFIER, MESSAGE_ID, then the
    /// record's own.
    private func withVectors<Result>(_ body: (UnsafeMutableBufferPointer<iovec>) -> Result) -> Result {
        record.withJournalMessage { message in
            identifierField.withUnsafeBufferPointer { identifier in
                record.withJournalFields { fields in
                    withUnsafeTemporaryAllocation(of: iovec.self, capacity: 4 + fields.maximumCount) { vectors in
                        var count = 0
                        // `!`: every field holds at least its `NAME=`, so it has an address.
                        func add(_ bytes: UnsafeBufferPointer<UInt8>) {
                            vectors.initializeElement(
                                at: count,
                                to: iovec(
                                    iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress!),
                                    iov_len: bytes.count))
                            count += 1
                        }
                        func add(_ text: StaticString) {
                            add(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
                        }
                        add(message)
                        add(Self.priorityField(StandardErrorLogHandler.priority(of: record.level)))
                        add(identifier)
                        add(record.kind.messageIDField)
                        for (_, named) in fields { add(named) }
                        defer { vectors.prefix(count).deinitialize() }
                        return body(UnsafeMutableBufferPointer(rebasing: vectors[..<count]))
                    }
                }
            }
        }
    }
}
