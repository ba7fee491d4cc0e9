// SPDX-License-Identifier: Apache-2.0
/// What the path depends on beyond the kernel's links, addresses and routes: which network each interface is on,
/// what detection says about cost, and the user's policy.
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
