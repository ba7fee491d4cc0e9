// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol

extension UsageService {
    /// GetUsage's networks: each network's usage, named as ListNetworks names it, with the interfaces counted for
    /// it now.
    func wireReport() -> [WireNetworkUsage] {
        let networks = usage()
        let day = today()
        let counted = countedInterfaces()
        let interfaces = hub.interfaces
        let policy = hub.context.policy
        let book = snapshot.book
        return networks.map { network in
            let limit = policy[network.key].dataLimit.map {
                WireDataLimit(DataLimitStatus(limit: $0, key: network.key, book: book, today: day))
            }
            let indexes = counted[network.key] ?? []
            let attached = interfaces.filter { indexes.contains($0.link.index) }
            let gateway = attached.lazy.compactMap(NetworkNaming.gateway(of:)).first
            return WireNetworkUsage(
                key: network.key.description,
                displayName: NetworkNaming.displayName(
                    of: NetworkIdentity(key: network.key), gateway: gateway, policy: policy),
                interfaces: attached.map(\.link.name),
                today: WireUsagePeriod(NetworkUsage.Period(days: day..<day.advanced(by: 1), counts: network.today)),
                cycle: WireUsagePeriod(network.cycle), pastCycles: network.pastCycles.map(WireUsagePeriod.init),
                dataLimit: limit)
        }
    }
}
