// SPDX-License-Identifier: Apache-2.0
import JSON

/// A growing buffer of JSON text, for the replies written on every change (`StreamedReplyWriter`). Each piece is
/// copied into room made beforehand, through a pointer the buffer owns: appended to an array, a key cost about 165
/// instructions of capacity and uniqueness checks around its copy (more than half of encoding a path); written
/// into an array's room about 75; here a bounds check and the copy. Not copyable: one owner frees the room.
struct JSONBytes: ~Copyable {
    /// The text is the first `count` bytes of `room`; the rest is room, doubled when a piece does not fit.
    private var room: UnsafeMutableBufferPointer<UInt8>
    private(set) var count = 0

    init(capacity: Int = 1024) { room = .allocate(capacity: max(capacity, 16)) }

    deinit { room.deallocate() }

    /// Appends text that is already JSON.
    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { append($0) }
    }

    mutating func bool(_ value: Bool) {
        value ? raw("true") : raw("false")
    }

    /// A number's decimal digits, written in place (a String per number was an allocation).
    mutating func integer(_ value: some BinaryInteger) {
        if value < 0 { raw("-") }
        var magnitude = UInt64(value.magnitude)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            append(UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// An array of string literals.
    mutating func strings(_ values: [String]) {
        raw("[")
        for (position, value) in values.enumerated() {
            if position > 0 { raw(",") }
            quoted(value)
        }
        raw("]")
    }

    /// The text written.
    var bytes: [UInt8] { Array(UnsafeBufferPointer(rebasing: room[..<count])) }

    /// The text where it is, for the length of `body`.
    func withBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: room[..<count])))
    }

    /// The text and the NUL that ends a Varlink message.
    consuming func terminated() -> [UInt8] {
        raw("\0")
        return bytes
    }

    /// Appends bytes that are already JSON. Inlined: the history writer calls it for every string it copies, and
    /// the call cost more than the copy.
    @inline(__always)
    mutating func append(_ piece: UnsafeBufferPointer<UInt8>) {
        guard let source = piece.baseAddress else { return }
        let end = count + piece.count
        if end > room.count { grow(to: end) }
        (room.baseAddress! + count).initialize(from: source, count: piece.count)
        count = end
    }

    /// Room for at least `end` bytes, the text copied over.
    private mutating func grow(to end: Int) {
        let larger = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(2 * room.count, end))
        _ = larger.initialize(fromContentsOf: room[..<count])
        room.deallocate()
        room = larger
    }
}
