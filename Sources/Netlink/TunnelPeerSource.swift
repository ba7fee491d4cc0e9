// SPDX-License-Identifier: Apache-2.0
import PathModel

/// Where the peers of a tunnel are, for tunnels whose link message does not say: WireGuard keeps its peers'
/// endpoints in generic netlink, not in IFLA_INFO_DATA.
protocol TunnelPeerSource: AnyObject {
    /// The endpoints (and fwmark) of the tunnel at `index`; nil when they cannot be known (no such family in the
    /// kernel, not such a tunnel, no answer). A tunnel with no peer endpoint yet has no remotes.
    func endpoints(ofLinkAt index: Int32) -> TunnelEndpoints?
}

/// Fills in `Link.tunnel` for WireGuard links from a `TunnelPeerSource`, and asks again when routing may have
/// moved: WireGuard sends no notification when a peer's endpoint changes (`wg set`, or roaming to where the peer's
/// packets now come from), so a change is seen with the next link or routing message the watcher reads, which is
/// also when it matters: the carrier is the kernel's route to the endpoint. Used only on the watcher's loop.
struct TunnelPeerCache {
    static let wireGuardKind = "wireguard"

    private let source: TunnelPeerSource?
    /// The WireGuard links as last delivered, with their endpoints.
    private var links: [Int32: Link] = [:]

    init(source: TunnelPeerSource?) {
        self.source = source
    }

    /// A WireGuard link with its endpoints filled in; any other link as it is.
    mutating func enrich(_ link: Link) -> Link {
        var link = link
        enrich(&link)
        return link
    }

    /// Fills in a WireGuard link's endpoints.
    mutating func enrich(_ link: inout Link) {
        guard link.linkKind == Self.wireGuardKind, let source else { return }
        link.tunnel = source.endpoints(ofLinkAt: link.index)
        links[link.index] = link
    }

    /// Fills in link events' WireGuard endpoints, in place; removed links forgotten.
    mutating func enrich(_ events: inout [KernelEvent]) {
        guard source != nil, events.contains(where: \.isLinkEvent) else { return }
        events.updateLinks({ enrich(&$0) }, removed: { links[$0] = nil })
    }

    /// A fresh dump's links, enriched; links the dump did not see are forgotten.
    mutating func restart(_ dumped: [Link]) -> [Link] {
        links = [:]
        return dumped.map { enrich($0) }
    }

    /// Asks again for the WireGuard links not asked in this batch (`asked`); a `.linkChanged` for each whose
    /// endpoints moved.
    mutating func refresh(except asked: Set<Int32>) -> [KernelEvent] {
        guard let source, !links.isEmpty else { return [] }
        var changed: [KernelEvent] = []
        for (index, link) in links.sorted(by: { $0.key < $1.key }) where !asked.contains(index) {
            // No answer (a timeout, the module gone) says nothing about the peers: keep what was known, or the
            // carrier would flap with every failed look-up.
            guard let endpoints = source.endpoints(ofLinkAt: index), endpoints != link.tunnel else { continue }
            var updated = link
            updated.tunnel = endpoints
            links[index] = updated
            changed.append(.linkChanged(updated))
        }
        return changed
    }

    /// Whether `change` may have moved the route to a known peer endpoint, or anything at all (a link, address,
    /// rule or nexthop): only then is it worth a look-up per WireGuard link, so a storm of unrelated host routes
    /// asks nothing. Peers added to a link without peers are seen at the next such change.
    func mayMove(_ change: RoutingChange) -> Bool {
        guard source != nil, !links.isEmpty else { return false }
        // An address message too, as before the follower tells renewals apart: a WireGuard link only.
        if change.isEverything || change.addressesMayMove { return true }
        return links.values.contains { $0.tunnel?.remotes.contains(where: change.affects) ?? false }
    }
}
