// SPDX-License-Identifier: Apache-2.0
import PathModel

/// What systemd says about one link's DNS: its servers, its domains, and whether it takes queries for any name.
public struct ResolverLinkSettings: Sendable, Hashable {
    /// The link's DNS servers, in order.
    public var servers: [IPAddress]
    /// Search domains: appended to single-label names, and routed to this link.
    public var searchDomains: [String]
    /// Route-only domains (`~example.com`): names under them go to this link; nothing is appended.
    public var routeOnlyDomains: [String]
    /// `DEFAULT_ROUTE=` / `DNS_DEFAULT_ROUTE=` when written; nil when resolved decides by itself.
    public var defaultRoute: Bool?

    /// Settings with the values given.
    public init(
        servers: [IPAddress] = [], searchDomains: [String] = [], routeOnlyDomains: [String] = [],
        defaultRoute: Bool? = nil
    ) {
        self.servers = servers
        self.searchDomains = searchDomains
        self.routeOnlyDomains = routeOnlyDomains
        self.defaultRoute = defaultRoute
    }

    /// Whether resolved sends this link queries for names outside its domains, as `dns_scope_is_default_route`
    /// decides: an explicit setting wins; otherwise a link with route-only domains is not a default route (a VPN
    /// that serves only `~corp.example` must not see every query), unless one of its domains is the root (`~.`).
    public var isDefaultRoute: Bool {
        if let defaultRoute { return defaultRoute }
        let isRoot = { (domain: String) in domain == "." || domain.isEmpty }
        if searchDomains.contains(where: isRoot) || routeOnlyDomains.contains(where: isRoot) { return true }
        return routeOnlyDomains.isEmpty
    }

    /// These settings and `other`'s together: servers of both without repeats, and `other`'s explicit default
    /// route when this one has none. For a link with both a networkd file and a resolved file (only while it
    /// changes hands: resolved saves its own file only for links networkd does not manage).
    public func merging(_ other: ResolverLinkSettings) -> ResolverLinkSettings {
        var merged = self
        for server in other.servers where !merged.servers.contains(server) { merged.servers.append(server) }
        merged.searchDomains += other.searchDomains.filter { !searchDomains.contains($0) }
        merged.routeOnlyDomains += other.routeOnlyDomains.filter { !routeOnlyDomains.contains($0) }
        merged.defaultRoute = defaultRoute ?? other.defaultRoute
        return merged
    }
}
