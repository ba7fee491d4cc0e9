// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

/// The path narrowed to a client's parameters, against every reason.
@Suite struct PathParametersTests {
    // eth0 wired (v4), wlan0 Wi-Fi (v4+v6), wwan0 cellular (v6 only, expensive).
    static let state = KernelState(
        KernelSnapshot(
            links: [makeLoopback(), makeLink(2, "eth0"), makeWifi(3), makeModem(4)],
            addresses: [
                makeAddress(2, "192.0.2.10"), makeAddress(3, "198.51.100.10"), makeAddress(3, "2001:db8:3::10"),
                makeAddress(4, "2001:db8:4::10"),
            ],
            routes: [
                makeRoute(2, via: "192.0.2.1"), makeRoute(3, via: "198.51.100.1"), makeRoute(3, via: "fe80::3"),
                makeRoute(4, via: "fe80::4"),
            ]))
    static let home = NetworkIdentity.wifi(ssid: Array("Home".utf8))

    func path(_ parameters: PathParameters, state: KernelState = state, policy: Policy = Policy()) -> Path {
        PathEvaluator().path(
            in: state, context: NetworkContext(identities: [3: Self.home], policy: policy), parameters: parameters)
    }

    @Test func unrestrictedIsTheSystemPath() {
        let system = path(.unrestricted)
        #expect(system.availableInterfaces.map(\.name) == ["eth0", "wlan0", "wwan0"])
        #expect(system.gateways.map(\.description) == ["192.0.2.1", "fe80::3"])
    }

    @Test(arguments: [
        (PathParameters(requiredInterfaceKind: .wifi), ["wlan0"]),
        (PathParameters(prohibitedInterfaceKinds: [.wired]), ["wlan0", "wwan0"]),
        (PathParameters(requiredInterfaceName: "wwan0"), ["wwan0"]),
        (PathParameters(prohibitsExpensive: true), ["eth0", "wlan0"]),
        (PathParameters(family: .ipv6), ["wlan0", "wwan0"]),
        (PathParameters(family: .ipv4), ["eth0", "wlan0"]),
        (PathParameters(prohibitedInterfaceKinds: [.wired], prohibitsExpensive: true, family: .ipv6), ["wlan0"]),
    ])
    func parametersNarrowTheInterfaces(parameters: PathParameters, names: [String]) {
        let narrowed = path(parameters)
        #expect(narrowed.status == .satisfied)
        #expect(narrowed.availableInterfaces.map(\.name) == names)
    }

    @Test func familyLimitsWhatThePathSupports() {
        let v6 = path(PathParameters(family: .ipv6))
        #expect(v6.supportsIPv6 && !v6.supportsIPv4)
        #expect(v6.gateways.map(\.description) == ["fe80::3"])
        let wired = path(PathParameters(requiredInterfaceKind: .wired))
        #expect(wired.supportsIPv4 && !wired.supportsIPv6)
    }

    @Test(arguments: [
        (PathParameters(requiredInterfaceKind: .other), UnsatisfiedReason.onlyProhibitedInterfaces),
        (PathParameters(requiredInterfaceName: "nosuch0"), .onlyProhibitedInterfaces),
        (PathParameters(prohibitedInterfaceKinds: [.wired, .wifi, .cellular]), .onlyProhibitedInterfaces),
        (PathParameters(requiredInterfaceKind: .wired, family: .ipv6), .familyUnavailable),
        (PathParameters(requiredInterfaceKind: .cellular, prohibitsExpensive: true), .onlyExpensiveInterfaces),
    ])
    func everyParameterReason(parameters: PathParameters, reason: UnsatisfiedReason) {
        let narrowed = path(parameters)
        #expect(narrowed.status == .unsatisfied)
        #expect(narrowed.unsatisfiedReason == reason)
        #expect(narrowed.availableInterfaces.isEmpty)
    }

    @Test func onlyConstrainedWhenLowDataModeIsProhibited() {
        var policy = Policy()
        policy[Self.home.key].isConstrained = true
        let parameters = PathParameters(requiredInterfaceKind: .wifi, prohibitsConstrained: true)
        #expect(path(parameters, policy: policy).unsatisfiedReason == .onlyConstrainedInterfaces)
        #expect(path(parameters).status == .satisfied)
        // Without the prohibition the constrained Wi-Fi is fine, and says so.
        let allowed = path(PathParameters(requiredInterfaceKind: .wifi), policy: policy)
        #expect(allowed.isConstrained)
    }

    @Test func noNetworkAtAllKeepsTheKernelReason() {
        var down = Self.state
        for index: Int32 in [2, 3, 4] {
            down.apply(.linkChanged(makeLink(index, "x\(index)", flags: [])))
        }
        #expect(path(PathParameters(prohibitsExpensive: true)).status == .satisfied)
        #expect(path(PathParameters(prohibitsExpensive: true), state: down).unsatisfiedReason == .interfacesDown)
    }

    @Test func dnsSupportFollowsTheResolverConfiguration() {
        let evaluator = PathEvaluator()
        let none = evaluator.path(in: Self.state)
        #expect(!none.supportsDNS)
        let global = evaluator.path(
            in: Self.state, context: NetworkContext(resolvers: ResolverConfiguration(globalServers: [ip("192.0.2.53")]))
        )
        #expect(global.supportsDNS)
        // Per-link servers count only for the links the path uses.
        let onCellular = NetworkContext(resolvers: ResolverConfiguration(linkServers: [4: [ip("2001:db8:4::53")]]))
        #expect(evaluator.path(in: Self.state, context: onCellular).supportsDNS)
        #expect(
            !evaluator.path(in: Self.state, context: onCellular, parameters: PathParameters(family: .ipv4)).supportsDNS)
    }
}
