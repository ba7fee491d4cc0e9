// SPDX-License-Identifier: Apache-2.0
import PathModel

/// An independent restatement of what the kernel does and what the path must be, written from KERNEL-NOTES and
/// the documentation of Path, without reading KernelState or PathEvaluator. Plain arrays and loops on purpose.
struct ReferenceKernel {
    var links: [Int32: Link] = [:]
    var addresses: [InterfaceAddress] = []
    var routes: [DefaultRoute] = []

    mutating func apply(_ event: KernelEvent) {
        switch event {
        case .linkChanged(let link):
            let wasUp = links[link.index]?.flags.contains(.up) == true
            if wasUp && !link.flags.contains(.up) {
                routes.removeAll { $0.interfaceIndex == link.index && $0.family == .ipv4 }
            }
            links[link.index] = link
        case .linkRemoved(let index):
            links[index] = nil
            addresses.removeAll { $0.interfaceIndex == index }
            routes.removeAll { $0.interfaceIndex == index }
        case .addressAdded(let address):
            addresses.removeAll { Self.sameAddress($0, address) }
            addresses.append(address)
        case .addressRemoved(let address):
            addresses.removeAll { Self.sameAddress($0, address) }
            // Losing its last IPv4 address silently takes a link's IPv4 routes with it (measured).
            if address.family == .ipv4
                && !addresses.contains(where: { $0.interfaceIndex == address.interfaceIndex && $0.family == .ipv4 })
            {
                routes.removeAll { $0.interfaceIndex == address.interfaceIndex && $0.family == .ipv4 }
            }
        case .routeAdded(let route, let replacing):
            // NLM_F_REPLACE takes the slot of table, destination and metric, for IPv4 and IPv6 alike (measured).
            if replacing { routes.removeAll { Self.sameSlot($0, route) } }
            if !routes.contains(route) { routes.append(route) }
        case .routeRemoved(let route):
            routes.removeAll { $0 == route }
        case .routeSlotCleared(let slot):
            routes.removeAll { Self.sameSlot($0, slot) }
        case .neighbourChanged, .neighbourRemoved, .routeDecisions, .nexthopChanged, .nexthopRemoved, .rulesChanged:
            // Neighbours only name wired networks; without a policy they never change the path.
            break
        case .snapshot(let snapshot):
            self = ReferenceKernel()
            for link in snapshot.links { links[link.index] = link }
            for address in snapshot.addresses { apply(.addressAdded(address)) }
            for route in snapshot.routes { apply(.routeAdded(route, replacing: false)) }
        }
    }

    static func sameAddress(_ lhs: InterfaceAddress, _ rhs: InterfaceAddress) -> Bool {
        lhs.interfaceIndex == rhs.interfaceIndex && lhs.address == rhs.address && lhs.prefixLength == rhs.prefixLength
    }

    static func sameSlot(_ lhs: DefaultRoute, _ rhs: DefaultRoute) -> Bool {
        lhs.family == rhs.family && lhs.table == rhs.table && lhs.prefixLength == rhs.prefixLength
            && lhs.destinationHighByte == rhs.destinationHighByte && lhs.metric == rhs.metric
    }

    /// The path as the documentation of Path, UnsatisfiedReason and InterfaceKind describes it.
    func path(classifier: Classifier) -> Path {
        struct Candidate {
            var link: Link
            var kind: InterfaceClass
            var stage: Int  // 0 down, 1 no carrier, 2 no address, 3 no route, 4 usable
            var families: [AddressFamily]
            var metric: UInt32
            /// A split default (prefix 1) of a family it routes: the kernel's longest match sends everything there.
            var splitDefault: Bool
        }
        var candidates: [Candidate] = []
        for index in links.keys.sorted() {
            let link = links[index]!  // the key came from the dictionary
            let kind = classifier.classify(link)
            if kind.kind == .loopback || link.flags.contains(.loopback) { continue }
            let usable = addresses.filter {
                $0.interfaceIndex == index && !$0.isTentative && ($0.scope == .universe || $0.scope == .site)
                    && !$0.address.isLinkLocal && !$0.address.isLoopback
            }
            let mine = routes.filter { $0.interfaceIndex == index }
            let families = AddressFamily.allCases.filter { family in
                usable.contains { $0.family == family } && mine.contains { $0.family == family }
            }
            let stage =
                !link.flags.contains(.up)
                ? 0
                : !link.flags.contains(.running)
                    ? 1
                    : usable.isEmpty
                        ? 2
                        : families.isEmpty ? 3 : 4
            let split = mine.contains { $0.prefixLength == 1 && families.contains($0.family) }
            candidates.append(
                Candidate(
                    link: link, kind: kind, stage: stage, families: families, metric: mine.map(\.metric).min() ?? .max,
                    splitDefault: split))
        }
        let available = candidates.filter { $0.stage == 4 }.sorted {
            ($0.splitDefault ? 0 : 1, $0.kind.kind.preferenceRank, $0.metric, $0.link.index) < (
                $1.splitDefault ? 0 : 1, $1.kind.kind.preferenceRank, $1.metric, $1.link.index
            )
        }
        guard !available.isEmpty else {
            let reasons: [UnsatisfiedReason] = [.interfacesDown, .noCarrier, .noAddress, .noDefaultRoute]
            guard let furthest = candidates.map(\.stage).max() else { return .unsatisfied(.noInterfaces) }
            return .unsatisfied(reasons[furthest])
        }
        var gateways: [IPAddress] = []
        for family in AddressFamily.allCases {
            guard let serving = available.first(where: { $0.families.contains(family) }) else { continue }
            // Best route first; equal-cost next hops in address order (device routes first), so the listing is stable.
            let ranked = routes.filter { $0.interfaceIndex == serving.link.index && $0.family == family }.sorted {
                lhs, rhs in
                let left = (lhs.metric, lhs.table, lhs.prefixLength, lhs.destinationHighByte)
                let right = (rhs.metric, rhs.table, rhs.prefixLength, rhs.destinationHighByte)
                if left != right { return left < right }
                switch (lhs.gateway, rhs.gateway) {
                case (let left?, let right?): return left < right
                case (nil, .some): return true
                default: return false
                }
            }
            for gateway in ranked.compactMap(\.gateway) where !gateways.contains(gateway) {
                gateways.append(gateway)
            }
        }
        // VPNs and tunnels ride on another interface and cost what it costs: with no endpoint known, the best
        // available interface that is not itself a tunnel.
        let tunnelKinds: Set<String> = [
            "tun", "wireguard", "ppp", "gre", "ip6gre", "ipip", "sit", "ip6tnl", "vti", "vti6", "xfrm", "l2tp",
            "gretap", "ip6gretap",
        ]
        func isTunnel(_ link: Link) -> Bool { tunnelKinds.contains(link.linkKind ?? "") || link.hardwareType == 512 }
        let carrier = available.first { !isTunnel($0.link) }
        func isExpensive(_ candidate: Candidate) -> Bool {
            candidate.kind.isExpensive || (isTunnel(candidate.link) && carrier?.kind.isExpensive == true)
        }
        return Path(
            status: .satisfied,
            availableInterfaces: available.map {
                PathInterface(
                    index: $0.link.index, name: $0.link.name, kind: $0.kind.kind, isExpensive: isExpensive($0),
                    isTunnel: isTunnel($0.link))
            },
            // Expensive when any family's traffic leaves by an expensive interface; the primary carries one.
            isExpensive: AddressFamily.allCases.contains { family in
                available.first { $0.families.contains(family) }.map(isExpensive) ?? false
            },
            supportsIPv4: available.contains { $0.families.contains(.ipv4) },
            supportsIPv6: available.contains { $0.families.contains(.ipv6) },
            gateways: gateways)
    }
}
