// SPDX-License-Identifier: Apache-2.0
/// What the path depends on beyond the kernel's links, addresses and routes: which network each interface is on,
/// what detection says about cost, and the user's policy.
///
/// A field added here must be named in `interfacesChanged(since:)`, or the tracker would not derive again the
/// interfaces whose status reads it.
public struct NetworkContext: Sendable, Hashable {
    private struct Fields: Sendable, Hashable {
        var identities: [Int32: NetworkIdentity]
        var meteredInterfaces: Set<Int32>
        var networkManagerMetered: Set<Int32> = []
        var roamingInterfaces: Set<Int32> = []
        var captivePortals: [Int32: CaptivePortalHint] = [:]
        var linkQualities: [Int32: LinkQuality] = [:]
        var dataLimits: [NetworkKey: DataLimitStatus] = [:]
        var policy: Policy
        var resolvers: ResolverConfiguration
    }

    /// The fields, in one box that copies of the context share until one of them changes (`CopyOnWrite`): the
    /// tracker hands the context to every interface it derives, and field by field a copy was 700 instructions.
    ///
    /// The fields' accessors are plain `get` and `set`, never `_read` or `_modify` coroutines: services change the
    /// context in closures (`PathHub.updateContext { $0.policy = policy }`), and Debian's swiftlang 6.2.3 crashes
    /// optimising a closure whose first call is a coroutine given only the closure's own argument (an assertion
    /// in CapturePropagation, 6.3 fixed). Changes are rare; the copy a `set` makes of one table is cheap.
    @CopyOnWrite private var fields: Fields

    /// Identities from sources the kernel's route tables do not hold (Wi-Fi SSID, SIM), by interface index.
    /// Wired identities come from the kernel's neighbour table and are derived, not stored here.
    public var identities: [Int32: NetworkIdentity] {
        get { fields.identities }
        set { fields.identities = newValue }
    }

    /// Interfaces detection found metered (a DHCP lease with ANDROID_METERED, for instance), by index.
    public var meteredInterfaces: Set<Int32> {
        get { fields.meteredInterfaces }
        set { fields.meteredInterfaces = newValue }
    }

    /// Interfaces NetworkManager calls metered (its Metered is yes or guessed yes), by index.
    public var networkManagerMetered: Set<Int32> {
        get { fields.networkManagerMetered }
        set { fields.networkManagerMetered = newValue }
    }

    /// Cellular interfaces whose modem is registered roaming (ModemManager's 3GPP registration state), by index.
    public var roamingInterfaces: Set<Int32> {
        get { fields.roamingInterfaces }
        set { fields.roamingInterfaces = newValue }
    }

    /// What DHCP clients and NetworkManager say about captive portals, by index (absent: nothing).
    public var captivePortals: [Int32: CaptivePortalHint] {
        get { fields.captivePortals }
        set { fields.captivePortals = newValue }
    }

    /// Link figures by index: Ethernet speed, Wi-Fi station information, a modem's radio.
    public var linkQualities: [Int32: LinkQuality] {
        get { fields.linkQualities }
        set { fields.linkQualities = newValue }
    }

    /// Each limited network's usage this cycle against its limit, by key (`DataLimitStatus`): what the usage meter
    /// last said. Only a status whose limit is the policy's in force counts (`dataLimitStatus(of:)`).
    public var dataLimits: [NetworkKey: DataLimitStatus] {
        get { fields.dataLimits }
        set { fields.dataLimits = newValue }
    }

    /// The user's settings.
    public var policy: Policy {
        get { fields.policy }
        set { fields.policy = newValue }
    }

    /// The DNS servers in use.
    public var resolvers: ResolverConfiguration {
        get { fields.resolvers }
        set { fields.resolvers = newValue }
    }

    public init(
        identities: [Int32: NetworkIdentity] = [:], meteredInterfaces: Set<Int32> = [], policy: Policy = Policy(),
        resolvers: ResolverConfiguration = ResolverConfiguration()
    ) {
        fields = Fields(
            identities: identities, meteredInterfaces: meteredInterfaces, policy: policy, resolvers: resolvers)
    }
}

extension NetworkContext {
    /// The interfaces whose status reads a field that differs from `old`'s: an edge of the dependency graph in
    /// docs/architecture.md. nil when every interface's may (the policy, whose networks any interface may join).
    /// The resolvers are read by the path alone, so they name no interface.
    func interfacesChanged(since old: NetworkContext) -> Set<Int32>? {
        // Keyed by network, like the policy: which interfaces are on a network is derived (a wired network from its
        // gateway's neighbour entry), so every interface is marked. A limit's status changes at its crossings and
        // in steps of a percent of the limit (`DataLimitStatus.reported`): rarely.
        guard policy == old.policy, dataLimits == old.dataLimits else { return nil }
        var changed = meteredInterfaces.symmetricDifference(old.meteredInterfaces)
        changed.formUnion(networkManagerMetered.symmetricDifference(old.networkManagerMetered))
        changed.formUnion(roamingInterfaces.symmetricDifference(old.roamingInterfaces))
        func differing<Value: Equatable>(_ new: [Int32: Value], _ old: [Int32: Value]) {
            guard new != old else { return }
            for index in Set(new.keys).union(old.keys) where new[index] != old[index] { changed.insert(index) }
        }
        differing(identities, old.identities)
        differing(captivePortals, old.captivePortals)
        differing(linkQualities, old.linkQualities)
        return changed
    }
}

extension NetworkContext {
    /// The status of `key`'s data limit, when the policy sets one and the meter measured it over the same cycle: a
    /// limit cleared, or given another size or warning, acts at once; one set anew, or on another cycle, when the
    /// meter has counted the usage of its cycle (the update that follows the policy's).
    public func dataLimitStatus(of key: NetworkKey) -> DataLimitStatus? {
        guard let limit = policy[key].dataLimit, var status = dataLimits[key], status.limit.cycle == limit.cycle
        else { return nil }
        status.limit = limit
        return status
    }
}

extension InterfaceStatus.Fields {
    /// Past the warning, constrained; past the limit, also expensive (named as the reason).
    mutating func applyDataLimit(_ limit: DataLimitStatus) {
        dataLimit = limit
        if limit.constrains { isConstrained = true }
        if limit.makesExpensive {
            isExpensive = true
            expensiveSource = .dataLimit
        }
    }
}
