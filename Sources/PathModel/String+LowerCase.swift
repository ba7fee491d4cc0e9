// SPDX-License-Identifier: Apache-2.0
extension String {
    /// `lowercased()`, without a new string when there is nothing to lower: link-layer addresses come from the
    /// kernel's bytes already in lower case, and each identity's key, and each gateway neighbour, made a copy of
    /// one (about 500 instructions each, on every route flip of a wired network).
    var lowercasedIfNeeded: String {
        let alreadyLower = utf8.withContiguousStorageIfAvailable(Self.isLowerCaseASCII) ?? false
        return alreadyLower ? self : lowercased()
    }

    /// Whether every byte is ASCII and none an upper-case letter: lowering changes nothing then. Eight bytes at a
    /// time (a byte at a time, a MAC address's 17 cost 210 instructions, twice on every route flip of a wired
    /// network and once per gateway neighbour message).
    static func isLowerCaseASCII(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard var byte = utf8.baseAddress else { return true }
        let end = byte + utf8.count
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs = ones &* 0x80
        while end - byte >= 8 {
            let word = UnsafeRawPointer(byte).loadUnaligned(as: UInt64.self)
            if word & highs != 0 { return false }
            // Every byte is under 0x80 here, so no sum below carries into the next byte (0x7F + 0x3F = 0xBE): a
            // byte's high bit is set by adding 0x3F when it is "A" (0x41) or over, by adding 0x25 when it is past
            // "Z" (0x5B or over).
            let fromA = (word &+ ones &* 0x3F) & highs
            let pastZ = (word &+ ones &* 0x25) & highs
            if fromA & ~pastZ != 0 { return false }
            byte += 8
        }
        while byte < end {
            let value = byte.pointee
            if value >= 0x80 || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(value) { return false }
            byte += 1
        }
        return true
    }
}
