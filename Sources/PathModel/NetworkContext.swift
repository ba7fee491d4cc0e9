// SPDX-License-Identifier: Apache-2.0
/// What the path depends on beyond the kernel's links, addresses and routes: which network each interface is on,
/// what detection says about cost, and the user's policy.
///
/// A field added here must be named in `interfacesChanged(since:)`, or the tracker would not derive again the
/// interfaces whose status reads it.
public struct NetworkContext: Sendable, Hashable {
    /// Identities from sources the kernel's route tables do not hold (Wi-Fi SSID, SIM), by interface index.
    /// Wired identities come from the kernel's neighbour table and are derived, not stored here.
    public var identities: [Int32: NetworkIdentity]
    /// Interfaces detection found metered (a DHCP lease with ANDROID_METERED, for instance), by index.
    public var meteredInterfaces: Set<Int32>
    /// Interfaces NetworkManager calls metered (its Metered is yes or guessed yes), by index.
    public var networkManagerMetered: Set<Int32> = []
    /// Cellular interfaces whose modem is registered roaming (ModemManager's 3GPP registration state), by index.
    public var roamingInterfaces: Set<Int32> = []
    /// What DHCP clients and NetworkManager say about captive portals, by index (absent: nothing).
    public var captivePortals: [Int32: CaptivePortalHint] = [:]
    /// Link figures by index: Ethernet speed, Wi-Fi station information, a modem's radio.
    public var linkQualities: [Int32: LinkQuality] = [:]
    /// The user's settings.
    public var policy: Policy
    /// The DNS servers in use.
    public var resolvers: ResolverConfiguration

    public init(
        identities: [Int32: NetworkIdentity] = [:], meteredInterfaces: Set<Int32> = [], policy: Policy = Policy(),
        resolvers: ResolverConfiguration = ResolverConfiguration()
    ) {
        self.identities = identities
        self.meteredInterfaces = meteredInterfaces
        self.policy = policy
        self.resolvers = resolvers
    }
}

extension NetworkContext {
    /// The interfaces whose status reads a field that differs from `old`'s: an edge of the dependency graph in
    /// docs/architecture.md. nil when every interface's may (the policy, whose networks any interface may join).
    /// The resolvers are read by the path alone, so they name no interface.
    func interfacesChanged(since old: NetworkContext) -> Set<Int32>? {
        guard policy == old.policy else { return nil }
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
