/// What the user said about one network. Nil means "not said": detection decides.
public struct NetworkPolicy: Sendable, Hashable {
    /// Low Data Mode: apps should hold back on this network.
    public var isConstrained: Bool?
    /// Treat traffic as costly, whatever detection says.
    public var isExpensive: Bool?

    public init(isConstrained: Bool? = nil, isExpensive: Bool? = nil) {
        self.isConstrained = isConstrained
        self.isExpensive = isExpensive
    }

    /// Nothing set: the network need not be remembered.
    public var isEmpty: Bool { isConstrained == nil && isExpensive == nil }
}

/// The user's settings for every network they have marked.
public struct Policy: Sendable, Hashable {
    /// Settings by network key.
    public private(set) var networks: [NetworkKey: NetworkPolicy]

    public init(networks: [NetworkKey: NetworkPolicy] = [:]) {
        self.networks = networks.filter { !$0.value.isEmpty }
    }

    /// The settings for one network (empty if none).
    public subscript(key: NetworkKey) -> NetworkPolicy {
        get { networks[key] ?? NetworkPolicy() }
        set { networks[key] = newValue.isEmpty ? nil : newValue }
    }

    /// Forgets a network; returns whether it was known.
    @discardableResult
    public mutating func forget(_ key: NetworkKey) -> Bool {
        networks.removeValue(forKey: key) != nil
    }
}
