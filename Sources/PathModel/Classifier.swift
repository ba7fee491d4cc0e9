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
        let matching = overrides.filter { $0.matches(link.name) }
        if let kind = matching.lazy.compactMap(\.kind).first {
            result.kind = kind
            // A kind forced to cellular is expensive unless an override says otherwise.
            if kind == .cellular { result.isExpensive = true }
        }
        if let expensive = matching.lazy.compactMap(\.isExpensive).first {
            result.isExpensive = expensive
        }
        return result
    }

    /// Whether the configuration calls the link ultra-constrained (first matching override that says either way).
    public func configuredUltraConstrained(_ link: Link) -> Bool? {
        overrides.lazy.filter { $0.matches(link.name) }.compactMap(\.isUltraConstrained).first
    }

    /// Whether roaming makes the link expensive: yes, unless the first matching override that says says no (a plan
    /// that includes roaming).
    public func roamingIsExpensive(_ link: Link) -> Bool {
        overrides.lazy.filter { $0.matches(link.name) }.compactMap(\.roamingIsExpensive).first ?? true
    }

    /// The network identity the configuration gives a link, if any (first matching override that sets one).
    public func configuredIdentity(of link: Link) -> NetworkIdentity? {
        overrides.lazy.filter { $0.matches(link.name) }.compactMap(\.network).first.map(NetworkIdentity.init(key:))
    }
}
