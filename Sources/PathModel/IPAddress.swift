// SPDX-License-Identifier: Apache-2.0
/// An IPv4 or IPv6 address, held inline as a 128-bit big-endian number (an IPv4 address in the low 32 bits), so
/// that copying, comparing and hashing one touches no heap memory: a change to a thousand watched flows hashes and
/// compares thousands of addresses.
public struct IPAddress: Sendable, Hashable, Comparable {
    /// IPv4 or IPv6.
    public let family: AddressFamily
    /// The first and last eight bytes of the address as a big-endian number; for IPv4, `high` is 0.
    @usableFromInline let high: UInt64
    @usableFromInline let low: UInt64

    /// Makes an address from its network-order bytes; `nil` unless there are exactly 4 or 16. Inlinable, so the
    /// netlink readers' calls (on array slices, for every address and route a message carries) are specialized
    /// instead of walking the bytes through a generic iterator.
    @inlinable
    public init?(bytes: some Collection<UInt8>) {
        switch bytes.count {
        case 4: family = .ipv4
        case 16: family = .ipv6
        default: return nil
        }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for byte in bytes {
            high = high << 8 | low >> 56
            low = low << 8 | UInt64(byte)
        }
        self.high = high
        self.low = low
    }

    /// 4 bytes for IPv4, 16 for IPv6, in network order (`storeBytes` into a new array).
    public var bytes: [UInt8] {
        [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, count in
            storeBytes(into: UnsafeMutableRawBufferPointer(buffer), toByteOffset: 0)
            count = byteCount
        }
    }

    /// How many bytes the address has: 4 or 16.
    public var byteCount: Int { family == .ipv4 ? 4 : 16 }

    /// The byte at `index` (0 is the first on the wire), without making an array.
    public subscript(byte index: Int) -> UInt8 {
        precondition((0..<byteCount).contains(index), "byte \(index) of a \(byteCount)-byte address")
        let fromEnd = byteCount - 1 - index
        let word = fromEnd < 8 ? low : high
        return UInt8(truncatingIfNeeded: word >> (UInt64(fromEnd % 8) * 8))
    }

    /// Stores the address's network-order bytes (`byteCount` of them) at `offset`, as whole words: a request to
    /// the kernel is written in place, and byte by byte each address cost a bounds check and a shift per byte.
    @inlinable
    public func storeBytes(into bytes: UnsafeMutableRawBufferPointer, toByteOffset offset: Int) {
        switch family {
        case .ipv4:
            bytes.storeBytes(of: UInt32(truncatingIfNeeded: low).bigEndian, toByteOffset: offset, as: UInt32.self)
        case .ipv6:
            bytes.storeBytes(of: high.bigEndian, toByteOffset: offset, as: UInt64.self)
            bytes.storeBytes(of: low.bigEndian, toByteOffset: offset + 8, as: UInt64.self)
        }
    }

    /// Whether the first `length` bits equal those of `prefix` (false across families).
    public func hasPrefix(_ prefix: IPAddress, length: Int) -> Bool {
        guard prefix.family == family else { return false }
        // Left-align both as 128 bits, so that `length` counts from the first bit on the wire.
        func aligned(_ address: IPAddress) -> (UInt64, UInt64) {
            address.family == .ipv6 ? (address.high, address.low) : (address.low << 32, 0)
        }
        let (mine, theirs) = (aligned(self), aligned(prefix))
        let (highMask, lowMask) = Self.masks(length: max(0, min(length, byteCount * 8)))
        return mine.0 & highMask == theirs.0 & highMask && mine.1 & lowMask == theirs.1 & lowMask
    }

    /// The first address of the `length`-bit prefix that holds this one: its host bits cleared.
    public func network(prefixLength length: Int) -> IPAddress {
        let (highMask, lowMask) = Self.masks(length: max(0, min(length, byteCount * 8)))
        switch family {
        case .ipv4: return IPAddress(family: .ipv4, high: 0, low: low & highMask >> 32)
        case .ipv6: return IPAddress(family: .ipv6, high: high & highMask, low: low & lowMask)
        }
    }

    /// A prefix's masks over 128 bits aligned to the left (the first bit on the wire highest).
    private static func masks(length bits: Int) -> (high: UInt64, low: UInt64) {
        (
            bits >= 64 ? .max : (bits == 0 ? 0 : .max << UInt64(64 - bits)),
            bits <= 64 ? 0 : (bits >= 128 ? .max : .max << UInt64(128 - bits))
        )
    }

    /// True for 169.254/16 and fe80::/10, which never carry traffic beyond the link.
    public var isLinkLocal: Bool {
        switch family {
        case .ipv4: return low >> 16 == 0xA9FE
        case .ipv6: return high >> 54 == 0xFE80 >> 6
        }
    }

    /// The IPv4 address inside an IPv4-mapped IPv6 address (::ffff:a.b.c.d), which dual-stack sockets report
    /// for IPv4 peers; any other address as it is.
    public var unmappingIPv4: IPAddress {
        guard family == .ipv6, high == 0, low >> 32 == 0xFFFF else { return self }
        return IPAddress(family: .ipv4, high: 0, low: low & 0xFFFF_FFFF)
    }

    /// True for 127/8 and ::1.
    public var isLoopback: Bool {
        switch family {
        case .ipv4: return low >> 24 == 127
        case .ipv6: return high == 0 && low == 1
        }
    }

    /// Two words, the family folded into the top bit of the high one (an IPv4 address, whose high word is zero,
    /// sets it; an IPv6 address with that bit set hashes alike and is told apart by ==): route look-ups hash
    /// addresses on every change, and the synthesized hash fed the family as a word of its own.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(family == .ipv4 ? high | 1 << 63 : high)
        hasher.combine(low)
    }

    public static func < (lhs: IPAddress, rhs: IPAddress) -> Bool {
        if lhs.family != rhs.family { return lhs.family < rhs.family }
        // Big-endian numbers of one size: numeric order is the bytes' lexicographic order.
        return (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }

    init(family: AddressFamily, high: UInt64, low: UInt64) {
        self.family = family
        self.high = high
        self.low = low
    }
}
