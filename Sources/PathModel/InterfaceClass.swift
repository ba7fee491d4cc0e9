// SPDX-License-Identifier: Apache-2.0
/// What an interface is, for path purposes: its kind and whether traffic over it costs the user.
public struct InterfaceClass: Sendable, Hashable {
    /// Wired, Wi-Fi, cellular, loopback or other.
    public var kind: InterfaceKind
    /// Traffic is metered or otherwise costly: cellular, phone tethering, or configured so.
    public var isExpensive: Bool

    public init(kind: InterfaceKind, isExpensive: Bool) {
        self.kind = kind
        self.isExpensive = isExpensive
    }
}
