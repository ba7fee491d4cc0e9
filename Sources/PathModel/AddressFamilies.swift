// SPDX-License-Identifier: Apache-2.0
/// A set of address families, held in two bits: the families an interface serves, the kernel prefers it for, or a
/// client asks for. A `AddressFamilies` allocated, hashed and freed storage for at most two members in every
/// interface derived and every path (issue 41); this allocates nothing. It reads like a set (`contains`, `union`,
/// `[.ipv4, .ipv6]`) and iterates its members in family order, IPv4 first.
public struct AddressFamilies: Sendable, Hashable, Sequence, ExpressibleByArrayLiteral {
    private var bits: UInt8

    private static func bit(_ family: AddressFamily) -> UInt8 { family == .ipv4 ? 1 : 2 }

    public init() { bits = 0 }

    public init(arrayLiteral families: AddressFamily...) {
        self.init(families)
    }

    public init<Families: Sequence<AddressFamily>>(_ families: Families) {
        bits = 0
        for family in families { bits |= Self.bit(family) }
    }

    public static let both: AddressFamilies = [.ipv4, .ipv6]

    public var isEmpty: Bool { bits == 0 }
    public var count: Int { bits.nonzeroBitCount }

    public func contains(_ family: AddressFamily) -> Bool { bits & Self.bit(family) != 0 }

    /// Whether `family` was absent (as `Set.insert` says).
    @discardableResult
    public mutating func insert(_ family: AddressFamily) -> Bool {
        defer { bits |= Self.bit(family) }
        return !contains(family)
    }

    public mutating func remove(_ family: AddressFamily) { bits &= ~Self.bit(family) }

    public func union(_ other: AddressFamilies) -> AddressFamilies { AddressFamilies(bits: bits | other.bits) }
    public func intersection(_ other: AddressFamilies) -> AddressFamilies { AddressFamilies(bits: bits & other.bits) }
    public func subtracting(_ other: AddressFamilies) -> AddressFamilies { AddressFamilies(bits: bits & ~other.bits) }
    public mutating func formUnion(_ other: AddressFamilies) { bits |= other.bits }
    public func isSubset(of other: AddressFamilies) -> Bool { bits & ~other.bits == 0 }
    public func isDisjoint(with other: AddressFamilies) -> Bool { bits & other.bits == 0 }

    private init(bits: UInt8) { self.bits = bits }

    public struct Iterator: IteratorProtocol {
        fileprivate var remaining: UInt8

        public mutating func next() -> AddressFamily? {
            if remaining & 1 != 0 {
                remaining &= ~1
                return .ipv4
            }
            if remaining & 2 != 0 {
                remaining = 0
                return .ipv6
            }
            return nil
        }
    }

    public func makeIterator() -> Iterator { Iterator(remaining: bits) }
    public var underestimatedCount: Int { count }
}

extension AddressFamilies: CustomStringConvertible {
    public var description: String { "[" + map(\.rawValue).joined(separator: ", ") + "]" }
}
