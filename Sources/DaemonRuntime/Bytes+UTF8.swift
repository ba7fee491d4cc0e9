// SPDX-License-Identifier: Apache-2.0
extension Array where Element == UInt8 {
    /// Appends a string's UTF-8 bytes, copied as one buffer: the string's view appended byte by byte cost a dozen
    /// instructions a byte, on every path change's log record.
    @inline(__always) mutating func appendUTF8(_ text: String) {
        var text = text
        text.withUTF8 { append(contentsOf: $0) }
    }

    /// Appends constant text's UTF-8 bytes.
    @inline(__always) mutating func appendUTF8(_ text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }
}
