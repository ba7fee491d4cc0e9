// SPDX-License-Identifier: Apache-2.0
extension PathEvaluator {
    /// A tunnel costs what the interface carrying its own packets costs (as NWPath treats a VPN over cellular):
    /// expensive, constrained or ultra-constrained when its carrier is. The carrier is the kernel's route to the tunnel's endpoint
    /// (its mark included); for tunnels whose far end the kernel does not know (tun, tap, PPP), the best usable
    /// interface that is not a tunnel, in the documented order. Nested tunnels resolve from the outside in.
    static func inheritingCarrierCost(
        _ statuses: [InterfaceStatus], decisions: [RouteQuery: RouteDecision]
    ) -> [InterfaceStatus] {
        // Only a tunnel has a carrier: without one (most machines, most of the time) there is nothing to inherit.
        guard statuses.contains(where: { $0.isTunnel }) else { return statuses }
        var result = statuses
        let byIndex = Dictionary(
            statuses.enumerated().map { ($1.link.index, $0) }, uniquingKeysWith: { first, _ in first })
        let fallback = statuses.filter { $0.readiness == .usable && !$0.isTunnel }
            .min { preferred($0, $1) }?.link.index
        for position in result.indices where result[position].isTunnel {
            let own = result[position].link
            let endpointCarrier = own.tunnel?.queries.lazy.compactMap { decisions[$0]?.interfaceIndex }
                .first { $0 != own.index }
            result[position].carrier = endpointCarrier ?? (fallback == own.index ? nil : fallback)
        }
        // A carrier may itself be a tunnel: a few rounds settle nesting, and a loop cannot run forever.
        for _ in 0..<4 {
            var changed = false
            for position in result.indices {
                guard let carrier = result[position].carrier, let other = byIndex[carrier] else { continue }
                let carrierStatus = result[other]
                if carrierStatus.isExpensive && !result[position].isExpensive
                    && result[position].expensiveSource != .user
                {
                    result[position].isExpensive = true
                    result[position].expensiveSource = .tunnelCarrier
                    changed = true
                }
                if carrierStatus.isConstrained && !result[position].isConstrained {
                    result[position].isConstrained = true
                    changed = true
                }
                // A tunnel over a satellite link is as scarce as the link: hidden from clients that did not opt in.
                if carrierStatus.isUltraConstrained && !result[position].isUltraConstrained {
                    result[position].isUltraConstrained = true
                    changed = true
                }
                // A VPN over a captive network reaches nothing beyond the portal (if it connects at all).
                if carrierStatus.captivePortal == .captive && result[position].captivePortal != .captive {
                    result[position].captivePortal = .captive
                    result[position].captivePortalURI = carrierStatus.captivePortalURI
                    result[position].captivePortalAPI = carrierStatus.captivePortalAPI
                    changed = true
                }
                // A tunnel has no link layer of its own: its carrier's link is the one its packets cross.
                // The carrier's plan is the one a tunnel's bytes are counted against: its limit is the reason.
                if result[position].dataLimit == nil, let limit = carrierStatus.dataLimit {
                    result[position].dataLimit = limit
                    changed = true
                }
                if result[position].linkQuality == nil, let quality = carrierStatus.linkQuality {
                    result[position].linkQuality = quality
                    changed = true
                }
                // A VPN over a roaming modem roams: its packets cross the visited network.
                if carrierStatus.isRoaming && !result[position].isRoaming {
                    result[position].isRoaming = true
                    changed = true
                }
            }
            if !changed { break }
        }
        return result
    }
}
