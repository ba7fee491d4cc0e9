// SPDX-License-Identifier: Apache-2.0
/// Why the system path changed, in fields a script can match and in words a person reads: the kernel event kinds
/// of the batch that changed it and on which interfaces, a policy change and by whom, a detection, a resolver
/// change, a configuration reload.
public struct PathChangeCause: Sendable, Hashable {
    /// Where the change came from.
    public enum Kind: String, Sendable, HashedByCase, CaseIterable {
        /// Kernel notifications (links, addresses, routes, rules, neighbours).
        case kernel
        /// A full re-read of the kernel's tables: at start, or after notifications were lost.
        case resync
        /// The user's policy (SetExpensive, SetConstrained, ForgetNetwork).
        case policy
        /// Something pathmond detected: a metered DHCP lease, NetworkManager's Metered, a SIM or Wi-Fi network.
        case detection
        /// The resolver configuration (resolv.conf, systemd-resolved).
        case resolver
        /// The configuration file was reloaded.
        case configuration
        /// A caller that did not say.
        case unspecified
    }

    /// What a detection found.
    public enum Detection: String, Sendable, HashedByCase, CaseIterable {
        /// A DHCP lease carrying the metered option (ANDROID_METERED: a phone hotspot).
        case dhcpMetered
        /// NetworkManager's Metered property.
        case networkManagerMetered
        /// The SIM (or modem) behind a cellular link, or its radio (roaming; the detail says which).
        case cellular
        /// The Wi-Fi network (SSID) an interface is associated with.
        case wifi
        /// Identities of links that went away were forgotten.
        case identityForgotten
        /// A captive portal: a URI a DHCP lease or networkd recorded, or NetworkManager's connectivity check.
        case captivePortal
        /// A link's quality: Ethernet speed, Wi-Fi station figures, a modem's technology or signal.
        case linkQuality
        /// A network's usage against its data limit: the warning or the limit passed, or a new cycle began.
        case dataLimit
    }

    /// The kind of kernel table a notification touched, in the spelling the history uses.
    public enum KernelTable: String, Sendable, HashedByCase, CaseIterable, Comparable {
        case link, address, route, rule, neighbour

        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }

        /// Every table in the declared order, made once.
        static let inRankOrder = allCases

        /// Each set of tables in rank order, by its bits (bit `rank` for each table), made once: a batch's cause
        /// takes the one it names, a retain, where it made an array on every path change.
        static let sets: [[KernelTable]] = (0..<(1 << inRankOrder.count)).map { bits in
            inRankOrder.filter { bits & 1 << $0.rank != 0 }
        }

        /// The position in the declared order (a switch: `allCases` would be an array made per comparison).
        var rank: Int {
            switch self {
            case .link: 0
            case .address: 1
            case .route: 2
            case .rule: 3
            case .neighbour: 4
            }
        }
    }

    /// The fields, shared by the copies until one of them is changed: a cause travels by copy from the batch to
    /// the history, the log and the replies, and field by field (its four arrays and three strings) each copy
    /// cost a path change 160 instructions, and as many to destroy (issue 41). Its own box, as `Link`'s.
    private var storage: Storage

    /// `@unchecked Sendable`: a box is changed only while one value alone holds it (`mutableStorage`), so a box
    /// that two values, or two threads, can reach is never written.
    private final class Storage: @unchecked Sendable {
        var kind: Kind
        var kernelTables: [KernelTable]
        var interfaceIndices: [Int32]
        var interfaces: [String]
        var detection: Detection?
        var network: String?
        var userID: UInt32?
        var detail: String?

        init(
            kind: Kind, kernelTables: [KernelTable], interfaceIndices: [Int32], interfaces: [String],
            detection: Detection?, network: String?, userID: UInt32?, detail: String?
        ) {
            self.kind = kind
            self.kernelTables = kernelTables
            self.interfaceIndices = interfaceIndices
            self.interfaces = interfaces
            self.detection = detection
            self.network = network
            self.userID = userID
            self.detail = detail
        }

        func copy() -> Storage {
            Storage(
                kind: kind, kernelTables: kernelTables, interfaceIndices: interfaceIndices, interfaces: interfaces,
                detection: detection, network: network, userID: userID, detail: detail)
        }

        func hasFields(of other: Storage) -> Bool {
            kind == other.kind && kernelTables == other.kernelTables && interfaceIndices == other.interfaceIndices
                && interfaces == other.interfaces && detection == other.detection && network == other.network
                && userID == other.userID && detail == other.detail
        }
    }

    /// The box, made this value's own before it is written.
    private var mutableStorage: Storage {
        mutating get {
            if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
            return storage
        }
    }

    public var kind: Kind {
        get { storage.kind }
        set { mutableStorage.kind = newValue }
    }
    /// For `kernel`: the tables the batch touched, in a fixed order.
    public var kernelTables: [KernelTable] {
        get { storage.kernelTables }
        set { mutableStorage.kernelTables = newValue }
    }
    /// The interfaces the change concerns, by index (names are filled in by `named(_:)`).
    public var interfaceIndices: [Int32] {
        get { storage.interfaceIndices }
        set { mutableStorage.interfaceIndices = newValue }
    }
    /// The interfaces the change concerns, by name; empty until named.
    public var interfaces: [String] {
        get { storage.interfaces }
        set { mutableStorage.interfaces = newValue }
    }
    /// For `detection`: what was detected.
    public var detection: Detection? {
        get { storage.detection }
        set { mutableStorage.detection = newValue }
    }
    /// For `policy`: the network key changed, and the uid of the client that asked.
    public var network: String? {
        get { storage.network }
        set { mutableStorage.network = newValue }
    }
    public var userID: UInt32? {
        get { storage.userID }
        set { mutableStorage.userID = newValue }
    }
    /// Free words that complete the summary (a policy setting, why a resync happened).
    public var detail: String? {
        get { storage.detail }
        set { mutableStorage.detail = newValue }
    }

    public init(
        kind: Kind, kernelTables: [KernelTable] = [], interfaceIndices: [Int32] = [], interfaces: [String] = [],
        detection: Detection? = nil, network: String? = nil, userID: UInt32? = nil, detail: String? = nil
    ) {
        storage = Storage(
            kind: kind, kernelTables: kernelTables, interfaceIndices: interfaceIndices, interfaces: interfaces,
            detection: detection, network: network, userID: userID, detail: detail)
    }

    /// Copies that still share their box are equal without a look at a field.
    public static func == (lhs: PathChangeCause, rhs: PathChangeCause) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.hasFields(of: rhs.storage)
    }

    public func hash(into hasher: inout Hasher) {
        let fields = storage
        hasher.combine(fields.kind)
        hasher.combine(fields.kernelTables)
        hasher.combine(fields.interfaceIndices)
        hasher.combine(fields.interfaces)
        hasher.combine(fields.detection)
        hasher.combine(fields.network)
        hasher.combine(fields.userID)
        hasher.combine(fields.detail)
    }

    /// A caller that gave no cause.
    public static let unspecified = PathChangeCause(kind: .unspecified)
    /// The configuration file was reloaded.
    public static let configurationReload = PathChangeCause(kind: .configuration)
    /// The resolver configuration changed.
    public static let resolverChange = PathChangeCause(kind: .resolver)

    /// A detection on the given interfaces.
    public static func detected(_ detection: Detection, interfaces: [Int32], detail: String? = nil) -> PathChangeCause {
        PathChangeCause(kind: .detection, interfaceIndices: interfaces.sorted(), detection: detection, detail: detail)
    }

    /// A policy change of `network` asked by `userID` (nil: unknown peer).
    public static func policy(network: String, userID: UInt32?, setting: String?) -> PathChangeCause {
        PathChangeCause(kind: .policy, network: network, userID: userID, detail: setting)
    }

    /// The cause for a batch of kernel events: the tables touched and the interfaces named, each once.
    public static func kernel(_ events: [KernelEvent]) -> PathChangeCause {
        // A batch names a table or two and an interface or two: a bit per table and short arrays, not sets and a
        // dictionary, since this runs for every kernel batch that changes the path.
        var tables: UInt8 = 0
        var indices: [Int32] = []
        var linksChanged = false
        var decisionsChanged = false
        func touch(_ table: KernelTable, _ index: Int32? = nil) {
            tables |= 1 << table.rank
            if let index, index > 0, !indices.contains(index) { indices.append(index) }
        }
        for event in events {
            switch event {
            case .snapshot:
                return PathChangeCause(kind: .resync)
            case .linkChanged(let link):
                touch(.link, link.index)
                linksChanged = true
            case .linkRemoved(let index):
                touch(.link, index)
            case .addressAdded(let address), .addressRemoved(let address):
                touch(.address, address.interfaceIndex)
            case .routeAdded(let route, _), .routeRemoved(let route), .routeSlotCleared(let route):
                touch(.route, route.interfaceIndex)
            case .nexthopChanged(let nexthop):
                // Nexthop objects are routing state: the history names them as routes.
                touch(.route, nexthop.interfaceIndex)
            case .nexthopRemoved:
                touch(.route)
            case .rulesChanged:
                touch(.rule)
            case .neighbourChanged(let neighbour):
                touch(.neighbour, neighbour.interfaceIndex)
            case .neighbourRemoved(let index, _):
                touch(.neighbour, index)
            case .routeDecisions:
                decisionsChanged = true
            }
        }
        // The kernel's own routing decision changed: what changed it is named by the batch's other events (a
        // rule, a nexthop); without any, it was a route the model does not keep (a specific route).
        let routing: UInt8 = 1 << KernelTable.route.rank | 1 << KernelTable.rule.rank
        if decisionsChanged && tables & routing == 0 { touch(.route) }
        indices.sort()
        var cause = PathChangeCause(
            kind: .kernel, kernelTables: KernelTable.sets[Int(tables)], interfaceIndices: indices)
        // Links name themselves when every interface is a link of the batch; the rest are named later from the
        // interfaces the hub knows (a route flip's batch has no link: no list of names made for nothing).
        if linksChanged, let names = linkNames(of: indices, in: events) { cause.interfaces = names }
        return cause
    }

    /// Each interface's name as the batch's last message about its link gives it, in the order of `indices`; nil
    /// when one has no such message. Looked up in the batch, a few events, rather than gathered into a list of
    /// names as they came (an array made and freed on every carrier flip).
    private static func linkNames(of indices: [Int32], in events: [KernelEvent]) -> [String]? {
        var names: [String] = []
        names.reserveCapacity(indices.count)
        for index in indices {
            var name: String?
            for case .linkChanged(let link) in events.reversed() where link.index == index {
                name = link.name
                break
            }
            guard let name else { return nil }
            names.append(name)
        }
        return names
    }

    /// The cause with interface names looked up by index (an index no one knows stays as "#N").
    public consuming func named(_ name: (Int32) -> String?) -> PathChangeCause {
        guard interfaces.count != interfaceIndices.count else { return self }
        var named = consume self
        named.interfaces = named.interfaceIndices.map { name($0) ?? "#\($0)" }
        return named
    }
}
