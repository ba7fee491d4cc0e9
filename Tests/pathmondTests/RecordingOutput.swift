// SPDX-License-Identifier: Apache-2.0
@testable import pathmond

/// A connection the test controls: it records what is written and reads as writable or not as the test says.
final class RecordingOutput: StreamOutput {
    var isWritable = true
    private(set) var isClosed = false
    private var written: [[UInt8]] = []

    func write(_ bytes: [UInt8]) {
        precondition(!isClosed, "a write after close")
        written.append(bytes)
    }

    func close() { isClosed = true }

    /// What was written since the last call, each reply without its NUL.
    func takeWritten() -> [[UInt8]] {
        defer { written = [] }
        return written.map { bytes in
            precondition(bytes.last == 0, "a reply without its NUL")
            return Array(bytes.dropLast())
        }
    }
}
