// SPDX-License-Identifier: Apache-2.0
/// Classifies interfaces: the built-in rules, then the configured overrides (the first matching override wins
/// for each field it sets).
public struct Classifier: Sendable, Hashable {
    /// Overrides in the order the configuration lists them.
    public var overrides: [InterfaceOverride]

    public init(overrides: [InterfaceOverride] = []) {
        self.overrides = overrides
    }

    /// The class of a link after overrides.
    public func classify(_ link: Link) -> InterfaceClass {
        var result = Classification.classify(link)
        // Loopback is never part of a path, whatever a broad pattern such as "*" says.
        guard result.kind != .loopback else { return result }
        if let kind = firstSetting(for: link, { $0.kind }) {
            result.kind = kind
            // A kind forced to cellular is expensive unless an override says otherwise.
            if kind == .cellular { result.isExpensive = true }
        }
        if let expensive = firstSetting(for: link, { $0.isExpensive }) {
            result.isExpensive = expensive
        }
        return result
    }

    /// Whether the configuration calls the link ultra-constrained (first matching override that says either way).
    public func configuredUltraConstrained(_ link: Link) -> Bool? {
        firstSetting(for: link) { $0.isUltraConstrained }
    }

    /// Whether roaming makes the link expensive: yes, unless the first matching override that says says no (a plan
    /// that includes roaming).
    public func roamingIsExpensive(_ link: Link) -> Bool {
        firstSetting(for: link) { $0.roamingIsExpensive } ?? true
    }

    /// The network identity the configuration gives a link, if any (first matching override that sets one).
    public func configuredIdentity(of link: Link) -> NetworkIdentity? {
        firstSetting(for: link) { $0.network }.map(NetworkIdentity.init(key:))
    }

    /// What the first override that matches the link and sets `field` sets it to. A plain loop that reads only the
    /// name: the lazy filters captured the whole link, two copies of it per call even with no override at all
    /// (1,300 instructions of each interface derived). The field is read by a closure, not a key path: a key path
    /// argument was made at run time (swift_getKeyPath) at every call, overrides or not.
    private func firstSetting<Value>(
        for link: borrowing Link, _ field: (InterfaceOverride) -> Value?
    ) -> Value? {
        guard !overrides.isEmpty else { return nil }
        for override in overrides where override.matches(link.name) {
            if let value = field(override) { return value }
        }
        return nil
    }
}
