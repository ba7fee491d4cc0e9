// SPDX-License-Identifier: Apache-2.0
/// What the kernel says about where a tunnel's own packets go: the far ends of an IP tunnel (IFLA_INFO_DATA's
/// remote) or of WireGuard peers, and the mark its packets carry. The interface that carries them is found by
/// asking the kernel's routing for these endpoints, not from names.
public struct TunnelEndpoints: Sendable, Hashable {
    /// The remote endpoints (one for an IP tunnel, one per peer for WireGuard).
    public var remotes: [IPAddress]
    /// The firewall mark on the tunnel's own packets (GRE's and WireGuard's fwmark), which routing rules such as
    /// wg-quick's `not fwmark 51820` select on; nil for none.
    public var mark: UInt32?

    public init(remotes: [IPAddress], mark: UInt32? = nil) {
        self.remotes = remotes
        self.mark = mark
    }

    /// The route queries that find the carrier: one per remote, with the tunnel's mark.
    public var queries: [RouteQuery] {
        // The tunnel's own packets are the kernel's (a kernel socket is root's): asked as the system user.
        remotes.map {
            RouteQuery(destination: $0, mark: mark.flatMap { $0 == 0 ? nil : $0 }, uid: RouteQuery.systemUser)
        }
    }
}

extension RouteQuery {
    /// The queries the kernel is asked after every change: the internet's probes for each family, and each tunnel's
    /// endpoints. Flows add their own.
    public static func standing(for links: some Sequence<Link>) -> Set<RouteQuery> {
        var queries = Set(RouteQuery.internetProbes(.ipv4) + RouteQuery.internetProbes(.ipv6))
        for link in links { queries.formUnion(link.tunnel?.queries ?? []) }
        return queries
    }
}
