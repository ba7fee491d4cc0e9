// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

/// Roaming: a cellular link whose modem is registered on a visited network is `isRoaming`, expensive unless the
/// configuration says roaming costs nothing more, and kept out of the path of a client that prohibits roaming.
@Suite struct RoamingTests {
    // wlan0 Wi-Fi (IPv4), wwan0 cellular (IPv4 and IPv6).
    static func state(wifi: Bool = true) -> KernelState {
        var links = [makeLoopback(), makeModem(4)]
        var addresses = [makeAddress(4, "100.64.0.10"), makeAddress(4, "2001:db8:4::10")]
        var routes = [makeRoute(4, via: "100.64.0.1"), makeRoute(4, via: "fe80::4")]
        if wifi {
            links.append(makeWifi(3))
            addresses.append(makeAddress(3, "198.51.100.10"))
            routes.append(makeRoute(3, via: "198.51.100.1"))
        }
        return makeState(links, addresses: addresses, routes: routes)
    }

    static func context(roaming: Set<Int32>) -> NetworkContext {
        var context = NetworkContext()
        context.roamingInterfaces = roaming
        return context
    }

    static func modem(_ evaluator: PathEvaluator, roaming: Set<Int32>, state: KernelState = state()) -> InterfaceStatus
    {
        evaluator.interfaces(in: state, context: context(roaming: roaming)).first { $0.link.name == "wwan0" }!
    }

    /// Every combination of roaming, the configured cost of the link and the configured cost of roaming.
    @Test(arguments: [nil, true, false] as [Bool?], [nil, true, false] as [Bool?])
    func roamingCostFollowsTheConfiguration(linkExpensive: Bool?, roamingExpensive: Bool?) {
        let evaluator = PathEvaluator(
            classifier: Classifier(overrides: [
                InterfaceOverride(pattern: "wwan*", isExpensive: linkExpensive, roamingIsExpensive: roamingExpensive)
            ]))
        let home = Self.modem(evaluator, roaming: [])
        #expect(!home.isRoaming)
        #expect(home.isExpensive == (linkExpensive ?? true))
        let abroad = Self.modem(evaluator, roaming: [4])
        #expect(abroad.isRoaming)
        let roamingCosts = roamingExpensive ?? true
        #expect(abroad.isExpensive == (roamingCosts || (linkExpensive ?? true)))
        #expect(
            abroad.expensiveSource == (roamingCosts ? .roaming : (linkExpensive ?? true) ? .interfaceClass : nil))
    }

    @Test func theUserWinsOverRoaming() {
        let evaluator = PathEvaluator(
            classifier: Classifier(overrides: [InterfaceOverride(pattern: "wwan*", network: NetworkKey("cellular:abc"))]
            ))
        var context = Self.context(roaming: [4])
        context.policy[NetworkKey("cellular:abc")!] = NetworkPolicy(isExpensive: false)
        let modem = evaluator.interfaces(in: Self.state(), context: context).first { $0.link.name == "wwan0" }!
        #expect(modem.isRoaming && !modem.isExpensive && modem.expensiveSource == .user)
    }

    @Test func onlyACellularLinkRoams() {
        // The daemon maps ModemManager's ports to indices; a port the configuration calls wired does not roam.
        let evaluator = PathEvaluator(
            classifier: Classifier(overrides: [InterfaceOverride(pattern: "wwan*", kind: .wired)]))
        let modem = Self.modem(evaluator, roaming: [4])
        #expect(!modem.isRoaming)
        let wifi = PathEvaluator().interfaces(in: Self.state(), context: Self.context(roaming: [3]))
            .first { $0.link.name == "wlan0" }!
        #expect(!wifi.isRoaming && !wifi.isExpensive)
    }

    @Test func thePathRoamsWhenAFamilyLeavesByARoamingLink() {
        let path = PathEvaluator().path(in: Self.state(), context: Self.context(roaming: [4]))
        #expect(path.availableInterfaces.map(\.name) == ["wlan0", "wwan0"])
        #expect(path.availableInterfaces.map(\.isRoaming) == [false, true])
        // IPv6 leaves by wwan0 only.
        #expect(path.isRoaming && path.isExpensive)
        let v4 = PathEvaluator().path(
            in: Self.state(), context: Self.context(roaming: [4]), parameters: PathParameters(family: .ipv4))
        #expect(!v4.isRoaming)
    }

    @Test func prohibitsRoamingNarrowsThePathWithItsOwnReason() {
        let noRoaming = PathParameters(prohibitsRoaming: true)
        let mixed = PathEvaluator().path(in: Self.state(), context: Self.context(roaming: [4]), parameters: noRoaming)
        #expect(mixed.availableInterfaces.map(\.name) == ["wlan0"])
        #expect(!mixed.isRoaming && !mixed.supportsIPv6)
        let alone = PathEvaluator().path(
            in: Self.state(wifi: false), context: Self.context(roaming: [4]), parameters: noRoaming)
        #expect(alone == .unsatisfied(.onlyRoamingInterfaces))
        // Expensive is judged first: a client prohibiting both learns of the cost.
        let both = PathParameters(prohibitsExpensive: true, prohibitsRoaming: true)
        #expect(
            PathEvaluator().path(in: Self.state(wifi: false), context: Self.context(roaming: [4]), parameters: both)
                == .unsatisfied(.onlyExpensiveInterfaces))
        // At home the same client is served.
        let home = PathEvaluator().path(
            in: Self.state(wifi: false), context: Self.context(roaming: []), parameters: noRoaming)
        #expect(home.status == .satisfied)
    }

    @Test func aTunnelOverARoamingModemRoams() {
        let state = makeState(
            [makeLoopback(), makeModem(4), makeTunnel(5)],
            addresses: [makeAddress(4, "100.64.0.10"), makeAddress(5, "10.5.0.2")],
            routes: [makeRoute(4, via: "100.64.0.1", metric: 100), makeRoute(5, via: nil, metric: 50)])
        let statuses = PathEvaluator().interfaces(in: state, context: Self.context(roaming: [4]))
        let tunnel = statuses.first { $0.link.name == "wg0" }!
        #expect(tunnel.isRoaming && tunnel.isExpensive)
        #expect(
            PathEvaluator().path(
                in: state, context: Self.context(roaming: [4]), parameters: PathParameters(prohibitsRoaming: true))
                == .unsatisfied(.onlyRoamingInterfaces))
    }

    @Test func theConfigurationKey() throws {
        let configuration = try Configuration.parse("[interface wwan*]\nroaming-expensive = no\n")
        #expect(configuration.overrides == [InterfaceOverride(pattern: "wwan*", roamingIsExpensive: false)])
        #expect(!Classifier(overrides: configuration.overrides).roamingIsExpensive(makeModem(4)))
        #expect(Classifier().roamingIsExpensive(makeModem(4)))
        #expect(throws: ConfigurationError.invalidBoolean(line: 2, key: "roaming-expensive", value: "abroad")) {
            try Configuration.parse("[interface wwan*]\nroaming-expensive = abroad\n")
        }
    }
}
