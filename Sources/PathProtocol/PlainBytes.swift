// SPDX-License-Identifier: Apache-2.0
/// Whether text needs no escaping, tested eight bytes at a time: byte by byte it cost five to ten instructions a
/// byte on every reply, history line and log line a path change writes. One test for both of its callers, the JSON
/// writer's strings (`JSONBytes.needsNoEscape`) and the log's lines (`StandardErrorLogHandler.isPlainLine`), which
/// differ only in the bytes they refuse.
public enum PlainBytes {
    /// Whether no byte of `utf8` is under 0x20 (a control character), equal to `first` or `second`, or, with
    /// `asciiOnly`, 0x80 or over. Exact: a word is refused only if one of its bytes is.
    @inlinable @inline(__always)
    public static func none(
        of utf8: UnsafeBufferPointer<UInt8>, belowSpaceOr first: UInt8, _ second: UInt8, asciiOnly: Bool
    ) -> Bool {
        guard var byte = utf8.baseAddress else { return true }
        let end = byte + utf8.count
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        // A byte of 0x80 or over has its high bit set already: refused as it is when only ASCII passes.
        let refusedHighs = asciiOnly ? highs : 0
        while end - byte >= 8 {
            let word = UnsafeRawPointer(byte).loadUnaligned(as: UInt64.self)
            // A byte under n borrows into its own high bit when n is taken from each byte (its high bit clear
            // before); a byte equal to c is a zero byte once c is XORed out, and a zero byte is one under 1. A
            // borrow can flag a byte above one that is refused, never a word without one.
            let control = (word &- ones &* 0x20) & ~word
            let firsts = word ^ (ones &* UInt64(first))
            let seconds = word ^ (ones &* UInt64(second))
            let equal = ((firsts &- ones) & ~firsts) | ((seconds &- ones) & ~seconds)
            if (control | equal) & highs != 0 || word & refusedHighs != 0 { return false }
            byte += 8
        }
        while byte < end {
            let value = byte.pointee
            if value < 0x20 || value == first || value == second || (asciiOnly && value >= 0x80) { return false }
            byte += 1
        }
        return true
    }
}
