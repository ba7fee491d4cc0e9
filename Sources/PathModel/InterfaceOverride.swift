// SPDX-License-Identifier: Apache-2.0
/// A configured correction for interfaces the built-in rules get wrong, matched by name or glob pattern.
public struct InterfaceOverride: Sendable, Hashable {
    /// An interface name, or a shell-style pattern with `*`, `?` and `[...]`.
    public var pattern: String
    /// The kind to report instead of the detected one, if set.
    public var kind: InterfaceKind?
    /// The expensive flag to report instead of the detected one, if set.
    public var isExpensive: Bool?
    /// The network the interface is on, for devices whose identity pathmond cannot read (and for tests).
    public var network: NetworkKey?
    /// Ultra-constrained (a satellite terminal's interface, say), if set: see `NetworkPolicy.isUltraConstrained`.
    public var isUltraConstrained: Bool?
    /// Whether roaming makes the interface expensive, if set; roaming is expensive unless this says no.
    public var roamingIsExpensive: Bool?

    public init(
        pattern: String, kind: InterfaceKind? = nil, isExpensive: Bool? = nil, network: NetworkKey? = nil,
        isUltraConstrained: Bool? = nil, roamingIsExpensive: Bool? = nil
    ) {
        self.roamingIsExpensive = roamingIsExpensive
        self.pattern = pattern
        self.kind = kind
        self.isExpensive = isExpensive
        self.network = network
        self.isUltraConstrained = isUltraConstrained
    }

    /// Whether this override applies to an interface of that name.
    public func matches(_ name: String) -> Bool {
        Glob(pattern).matches(name)
    }
}
