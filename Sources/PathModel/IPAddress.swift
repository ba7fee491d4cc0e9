/// An IPv4 or IPv6 address, held as its network-order bytes.
public struct IPAddress: Sendable, Hashable, Comparable {
    /// IPv4 or IPv6.
    public let family: AddressFamily
    /// 4 bytes for IPv4, 16 for IPv6, in network order.
    public let bytes: [UInt8]

    /// Makes an address from its bytes; `nil` unless there are exactly 4 or 16.
    public init?(bytes: [UInt8]) {
        switch bytes.count {
        case 4: family = .ipv4
        case 16: family = .ipv6
        default: return nil
        }
        self.bytes = bytes
    }

    /// True for 169.254/16 and fe80::/10, which never carry traffic beyond the link.
    public var isLinkLocal: Bool {
        switch family {
        case .ipv4: return bytes[0] == 169 && bytes[1] == 254
        case .ipv6: return bytes[0] == 0xfe && (bytes[1] & 0xc0) == 0x80
        }
    }

    /// The IPv4 address inside an IPv4-mapped IPv6 address (::ffff:a.b.c.d), which dual-stack sockets report
    /// for IPv4 peers; any other address as it is.
    public var unmappingIPv4: IPAddress {
        guard family == .ipv6, bytes[..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff else {
            return self
        }
        return IPAddress(bytes: Array(bytes[12...]))!  // four bytes always make an IPv4 address
    }

    /// True for 127/8 and ::1.
    public var isLoopback: Bool {
        switch family {
        case .ipv4: return bytes[0] == 127
        case .ipv6: return bytes.dropLast().allSatisfy { $0 == 0 } && bytes[15] == 1
        }
    }

    public static func < (lhs: IPAddress, rhs: IPAddress) -> Bool {
        if lhs.family != rhs.family { return lhs.family < rhs.family }
        return lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}
