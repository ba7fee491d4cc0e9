// SPDX-License-Identifier: Apache-2.0
/// The IP version of an address or route.
public enum AddressFamily: String, Sendable, HashedByCase, CaseIterable, Comparable {
    case ipv4
    case ipv6

    public static func < (lhs: AddressFamily, rhs: AddressFamily) -> Bool {
        lhs == .ipv4 && rhs == .ipv6
    }
}
