// SPDX-License-Identifier: Apache-2.0
@testable import PathModel

/// Random but plausible kernel events over a small universe, so that links, addresses and routes collide often.
struct RandomKernel {
    var random: SplitMix64

    /// Index 1 is loopback; the others cover every kind the classifier knows.
    static let links: [Link] = [
        makeLoopback(), makeLink(2, "eth0"), makeWifi(3), makeModem(4), makeTunnel(5),
        makeLink(6, "veth0", linkKind: "veth"),
        makeLink(7, "usb0", device: DeviceFacts(driver: "rndis_host")),
    ]

    static let flagChoices: [LinkFlags] = [[], [.up], [.up, .lowerUp], [.up, .running], runningFlags, runningFlags]

    mutating func link() -> Link {
        var link = random.pick(Self.links)
        link.flags = random.pick(Self.flagChoices).union(link.flags.intersection(.loopback))
        if random.chance(10) { link.name += "-renamed" }
        return link
    }

    mutating func address() -> InterfaceAddress {
        let index = Int32(random.below(Self.links.count) + 1)
        let text = random.pick([
            "10.\(index).0.2", "10.\(index).0.3", "169.254.\(index).2", "2001:db8:\(index)::2",
            "fe80::\(index)", "127.0.0.\(index)",
        ])
        let scope = random.pick([AddressScope.universe, .universe, .universe, .site, .link, .host])
        return makeAddress(index, text, prefix: random.pick([24, 32, 64]), scope: scope, tentative: random.chance(20))
    }

    mutating func route() -> DefaultRoute {
        let index = Int32(random.below(Self.links.count) + 1)
        let family = random.pick(AddressFamily.allCases)
        let gateways = family == .ipv4 ? ["10.\(index).0.1", "10.9.0.1"] : ["fe80::1", "2001:db8::1"]
        let destination = random.pick([(UInt8(0), UInt8(0)), (1, 0), (1, 128)])
        return DefaultRoute(
            family: family, table: random.pick([254, 254, 100]), prefixLength: destination.0,
            destinationHighByte: destination.1, metric: random.pick([0, 100, 600]), interfaceIndex: index,
            gateway: random.chance(80) ? ip(random.pick(gateways)) : nil)
    }

    /// One event; removals usually name something the state holds, as the kernel's would.
    mutating func event(after state: KernelState) -> KernelEvent {
        switch random.below(100) {
        case 0..<22: return .linkChanged(link())
        case 22..<26: return .linkRemoved(index: Int32(random.below(Self.links.count + 1) + 1))
        case 26..<46: return .addressAdded(address())
        case 46..<56:
            let held = state.snapshot.addresses
            return .addressRemoved(held.isEmpty || random.chance(20) ? address() : random.pick(held))
        case 56..<82: return .routeAdded(route(), replacing: random.chance(35))
        case 82..<95:
            let held = state.snapshot.routes
            return .routeRemoved(held.isEmpty || random.chance(20) ? route() : random.pick(held))
        case 95..<97: return .snapshot(state.snapshot)
        default:
            return .snapshot(
                KernelSnapshot(
                    links: (0..<random.below(4)).map { _ in link() },
                    addresses: (0..<random.below(5)).map { _ in address() },
                    routes: (0..<random.below(5)).map { _ in route() }))
        }
    }
}
