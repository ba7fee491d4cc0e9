// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PathModel

/// A path costs what every interface it sends traffic over costs (issue 21): with IPv4 over cellular and IPv6 over
/// wired, every IPv4 packet is metered, so the path is expensive, whichever interface leads it. The same holds for
/// Low Data Mode. Every pair of kinds, every family requirement, with and without the kernel's own routing choice.
@Suite struct DualStackCostTests {
    static let kinds: [InterfaceKind] = [.wired, .wifi, .cellular]
    static let families: [PathParameters.FamilyRequirement] = [.any, .ipv4, .ipv6]

    enum Layout: CaseIterable {
        /// The IPv4 interface has only IPv4, the IPv6 one only IPv6.
        case singleStack
        /// Both are dual-stack; the kernel's decisions send IPv4 over the one and IPv6 over the other.
        case kernelSplit
    }

    static func link(_ kind: InterfaceKind, _ index: Int32) -> Link {
        switch kind {
        case .wifi: return makeWifi(index, "wlan\(index)")
        case .cellular: return makeModem(index, "wwan\(index)")
        default: return makeLink(index, "eth\(index)")
        }
    }

    /// IPv4 leaves by interface 2 (`v4Kind`), IPv6 by interface 3 (`v6Kind`).
    static func state(_ layout: Layout, _ v4Kind: InterfaceKind, _ v6Kind: InterfaceKind) -> KernelState {
        let links = [link(v4Kind, 2), link(v6Kind, 3)]
        var snapshot: KernelSnapshot
        switch layout {
        case .singleStack:
            snapshot = KernelSnapshot(
                links: links, addresses: [makeAddress(2, "192.0.2.10"), makeAddress(3, "2001:db8:3::10")],
                routes: [makeRoute(2, via: "192.0.2.1"), makeRoute(3, via: "fe80::3")])
        case .kernelSplit:
            snapshot = KernelSnapshot(
                links: links,
                addresses: [
                    makeAddress(2, "192.0.2.10"), makeAddress(2, "2001:db8:2::10"), makeAddress(3, "198.51.100.10"),
                    makeAddress(3, "2001:db8:3::10"),
                ],
                routes: [
                    makeRoute(2, via: "192.0.2.1"), makeRoute(2, via: "fe80::2"), makeRoute(3, via: "198.51.100.1"),
                    makeRoute(3, via: "fe80::3"),
                ])
            snapshot.decisions = [
                .internet(.ipv4): .via(interfaceIndex: 2, gateway: ip("192.0.2.1")),
                .internet(.ipv6): .via(interfaceIndex: 3, gateway: ip("fe80::3")),
            ]
        }
        return KernelState(snapshot)
    }

    /// Each interface on its own Wi-Fi-keyed network, so the user's policy can mark either constrained.
    static func context(constrained: Set<Int32>) -> NetworkContext {
        let identities: [Int32: NetworkIdentity] = [2: .wifi(ssid: Array("v4".utf8)), 3: .wifi(ssid: Array("v6".utf8))]
        var policy = Policy()
        for index in constrained { policy[identities[index]!.key].isConstrained = true }
        return NetworkContext(identities: identities, policy: policy)
    }

    @Test(arguments: Layout.allCases, families)
    func thePathIsExpensiveWhenAnyFamilysInterfaceIs(layout: Layout, family: PathParameters.FamilyRequirement) {
        for v4Kind in Self.kinds {
            for v6Kind in Self.kinds {
                let path = PathEvaluator().path(
                    in: Self.state(layout, v4Kind, v6Kind), parameters: PathParameters(family: family))
                let expected =
                    (family != .ipv6 && v4Kind == .cellular) || (family != .ipv4 && v6Kind == .cellular)
                #expect(path.status == .satisfied)
                #expect(path.isExpensive == expected, "IPv4 over \(v4Kind), IPv6 over \(v6Kind), \(family)")
                #expect(!path.isConstrained)
            }
        }
    }

    @Test(arguments: Layout.allCases, families)
    func thePathIsConstrainedWhenAnyFamilysNetworkIs(layout: Layout, family: PathParameters.FamilyRequirement) {
        for constrained in [[], [2], [3], [2, 3]] as [Set<Int32>] {
            let path = PathEvaluator().path(
                in: Self.state(layout, .wired, .wired), context: Self.context(constrained: constrained),
                parameters: PathParameters(family: family))
            let expected =
                (family != .ipv6 && constrained.contains(2)) || (family != .ipv4 && constrained.contains(3))
            #expect(path.isConstrained == expected, "constrained \(constrained), \(family)")
            #expect(!path.isExpensive)
        }
    }

    /// The case of the issue, whichever interface leads: IPv4 over cellular, IPv6 over wired.
    @Test(arguments: Layout.allCases)
    func ipv4OverCellularMakesTheDualStackPathExpensive(layout: Layout) {
        let path = PathEvaluator().path(in: Self.state(layout, .cellular, .wired))
        #expect(path.availableInterfaces.map(\.kind).contains(.wired))
        #expect(path.supportsIPv4 && path.supportsIPv6)
        #expect(path.isExpensive)
    }

    /// An app that prohibits expensive interfaces gets the cheap one alone, and a path that is not expensive.
    @Test(arguments: Layout.allCases)
    func prohibitingExpensiveLeavesACheapPath(layout: Layout) {
        let path = PathEvaluator().path(
            in: Self.state(layout, .cellular, .wired), parameters: PathParameters(prohibitsExpensive: true))
        #expect(path.status == .satisfied)
        #expect(path.availableInterfaces.map(\.name) == ["eth3"])
        #expect(!path.isExpensive)
    }

    /// Without the kernel's answer the model's own order decides each family's interface: a dual-stack wired
    /// interface carries both, and a cellular one behind it costs nothing.
    @Test func aSecondaryThatCarriesNoFamilyCostsNothing() {
        let state = makeState(
            [makeLink(2, "eth2"), makeModem(3, "wwan3")],
            addresses: [makeAddress(2, "192.0.2.10"), makeAddress(2, "2001:db8:2::10"), makeAddress(3, "10.3.0.2")],
            routes: [makeRoute(2, via: "192.0.2.1"), makeRoute(2, via: "fe80::2"), makeRoute(3, via: "10.3.0.1")])
        let path = PathEvaluator().path(in: state)
        #expect(path.availableInterfaces.map(\.name) == ["eth2", "wwan3"])
        #expect(!path.isExpensive)
    }
}
