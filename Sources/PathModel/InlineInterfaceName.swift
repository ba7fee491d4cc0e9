// SPDX-License-Identifier: Apache-2.0
/// An interface name held in place as plain bytes, so that a `RouteQuery` holding one is plain bytes too: copied,
/// hashed and compared with no reference counting. The decision tables copy and compare queries for every answer
/// on every change, and a `String` field made each copy a call into the runtime.
///
/// Linux names are at most 15 bytes (IFNAMSIZ, 16 with the NUL), so 16 bytes hold every real one. A longer name
/// keeps its first 16: it names no interface, and neither does its prefix, so it routes nowhere all the same.
struct InlineInterfaceName: Hashable, Sendable {
    /// The name's first 16 bytes of UTF-8, the first byte lowest in `low`.
    private let low: UInt64
    private let high: UInt64
    private let count: UInt8

    static let capacity = 16

    init(_ name: String) {
        var low: UInt64 = 0
        var high: UInt64 = 0
        var count = 0
        for byte in name.utf8.prefix(Self.capacity) {
            if count < 8 {
                low |= UInt64(byte) << UInt64(8 * count)
            } else {
                high |= UInt64(byte) << UInt64(8 * (count - 8))
            }
            count += 1
        }
        self.low = low
        self.high = high
        self.count = UInt8(count)
    }

    /// The name (a longer one's first 16 bytes; a character they cut reads as U+FFFD, so the result is still no
    /// real interface's name).
    var name: String {
        let bytes = (0..<Int(count)).map { position in
            UInt8(truncatingIfNeeded: (position < 8 ? low : high) >> UInt64(8 * (position % 8)))
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
