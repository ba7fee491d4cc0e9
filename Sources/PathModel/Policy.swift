/// What the user said about one network. Nil means "not said": detection decides.
public struct NetworkPolicy: Sendable, Hashable {
    /// Low Data Mode: apps should hold back on this network.
    public var isConstrained: Bool?
    /// Treat traffic as costly, whatever detection says.
    public var isExpensive: Bool?
    /// The user's name for the network ("Office"), shown instead of its key.
    public var name: String?

    public init(isConstrained: Bool? = nil, isExpensive: Bool? = nil, name: String? = nil) {
        self.isConstrained = isConstrained
        self.isExpensive = isExpensive
        self.name = name
    }

    /// Nothing set: the network need not be remembered.
    public var isEmpty: Bool { isConstrained == nil && isExpensive == nil && name == nil }

    /// The longest name, in bytes of UTF-8: a table column, not a document.
    public static let maximumNameLength = 64

    /// Whether `name` may name a network: 1 to 64 bytes of UTF-8, not only spaces, and nothing a person would not
    /// see as itself (`HiddenText`: control, bidirectional and invisible characters), which would garble a terminal
    /// or a log line, or make one network's name pass for another's.
    public static func isValidName(_ name: String) -> Bool {
        (1...maximumNameLength).contains(name.utf8.count)
            && name.unicodeScalars.contains { $0 != " " }
            && HiddenText.isVisible(name)
    }
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
