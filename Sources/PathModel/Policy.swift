// SPDX-License-Identifier: Apache-2.0
/// What the user said about one network. Nil means "not said": detection decides.
public struct NetworkPolicy: Sendable, Hashable {
    /// Low Data Mode: apps should hold back on this network.
    public var isConstrained: Bool?
    /// Treat traffic as costly, whatever detection says.
    public var isExpensive: Bool?
    /// The user's name for the network ("Office"), shown instead of its key.
    public var name: String?
    /// Ultra-constrained (a satellite link, as Apple's and Android's newest paths call it): constrained, and left
    /// out of the path of every client that did not opt in with `PathParameters.allowsUltraConstrained`.
    public var isUltraConstrained: Bool?
    /// The plan's data limit on the network (`pathctl set-limit`): past its warning the network is constrained,
    /// past the limit also expensive, whatever `isConstrained` and `isExpensive` say.
    public var dataLimit: DataLimit?

    public init(
        isConstrained: Bool? = nil, isExpensive: Bool? = nil, name: String? = nil, isUltraConstrained: Bool? = nil,
        dataLimit: DataLimit? = nil
    ) {
        self.isConstrained = isConstrained
        self.isExpensive = isExpensive
        self.name = name
        self.isUltraConstrained = isUltraConstrained
        self.dataLimit = dataLimit
    }

    /// Nothing set: the network need not be remembered.
    public var isEmpty: Bool {
        isConstrained == nil && isExpensive == nil && name == nil && isUltraConstrained == nil && dataLimit == nil
    }

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

    /// Whether a name read back from the policy file is kept: the rule names were given under before bidirectional
    /// and invisible characters were refused (1 to 64 bytes, not only spaces, no C0, DEL or C1). A name given then
    /// stays after an upgrade, with the network's settings: every surface escapes what it shows, and dropping the
    /// entry (or setting the file aside as damaged) would lose the user's Low Data Mode for a character.
    public static func isValidStoredName(_ name: String) -> Bool {
        (1...maximumNameLength).contains(name.utf8.count)
            && name.unicodeScalars.contains { $0 != " " }
            && !name.unicodeScalars.contains { $0.value < 0x20 || (0x7f..<0xa0).contains($0.value) }
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
