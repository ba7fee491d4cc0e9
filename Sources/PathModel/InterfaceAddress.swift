// SPDX-License-Identifier: Apache-2.0
/// An address assigned to an interface (RTM_NEWADDR).
public struct InterfaceAddress: Sendable, Hashable {
    /// The interface that holds the address.
    public var interfaceIndex: Int32
    /// The local address.
    public var address: IPAddress
    /// The prefix length of the on-link subnet.
    public var prefixLength: UInt8
    /// The kernel's address scope.
    public var scope: AddressScope
    /// IFA_F_TENTATIVE or IFA_F_DADFAILED: duplicate address detection has not passed, so it cannot be used. An
    /// optimistic address (IFA_F_OPTIMISTIC, RFC 4429) is not tentative here: the kernel uses it during DAD.
    public var isTentative: Bool

    public init(
        interfaceIndex: Int32, address: IPAddress, prefixLength: UInt8, scope: AddressScope = .universe,
        isTentative: Bool = false
    ) {
        self.interfaceIndex = interfaceIndex
        self.address = address
        self.prefixLength = prefixLength
        self.scope = scope
        self.isTentative = isTentative
    }

    /// The family of the address.
    public var family: AddressFamily { address.family }

    /// An address that can reach beyond the link: global (or site) scope, not link-local, past DAD.
    public var isUsable: Bool {
        !isTentative && (scope == .universe || scope == .site) && !address.isLinkLocal && !address.isLoopback
    }

    /// The kernel identity of an address: one interface, one address, one prefix.
    var key: AddressKey { AddressKey(interfaceIndex: interfaceIndex, address: address, prefixLength: prefixLength) }
}

struct AddressKey: Hashable {
    var interfaceIndex: Int32
    var address: IPAddress
    var prefixLength: UInt8
}

/// RT_SCOPE_* as the kernel numbers them.
public enum AddressScope: UInt8, Sendable, Hashable {
    case universe = 0
    case site = 200
    case link = 253
    case host = 254
    case nowhere = 255
}
