// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

/// Ultra-constrained networks (satellite links): constrained for the system, invisible to clients that did not opt
/// in, whether the user's policy, the configuration or a tunnel's carrier makes them so.
@Suite struct UltraConstrainedTests {
    // eth0 wired, sat0 a satellite terminal's Ethernet (wired too, behind eth0 by metric) on the network the
    // configuration names for it.
    static let satellite = NetworkKey("wifi:Starlink")!
    static let wired = makeLink(2, "eth0")
    static let dish = makeLink(3, "sat0")

    static func state(wiredUp: Bool = true, ipv6OnlyOverSatellite: Bool = false) -> KernelState {
        var links = [makeLoopback(), dish]
        var addresses = [makeAddress(3, "198.51.100.10"), makeAddress(3, "2001:db8:3::10")]
        var routes = [makeRoute(3, via: "198.51.100.1", metric: 600), makeRoute(3, via: "fe80::3", metric: 600)]
        if wiredUp {
            links.append(wired)
            addresses.append(makeAddress(2, "192.0.2.10"))
            routes.append(makeRoute(2, via: "192.0.2.1", metric: 100))
            if !ipv6OnlyOverSatellite {
                addresses.append(makeAddress(2, "2001:db8:2::10"))
                routes.append(makeRoute(2, via: "fe80::2", metric: 100))
            }
        }
        return makeState(links, addresses: addresses, routes: routes)
    }

    static func evaluator(configured: Bool?) -> PathEvaluator {
        PathEvaluator(
            classifier: Classifier(overrides: [
                InterfaceOverride(pattern: "sat*", network: satellite, isUltraConstrained: configured)
            ]))
    }

    static func policy(_ ultra: Bool?) -> Policy {
        var policy = Policy()
        policy[satellite] = NetworkPolicy(isUltraConstrained: ultra)
        return policy
    }

    /// Every combination of the user's word, the configuration's and the client's opt-in: the user wins over the
    /// configuration; an ultra-constrained interface is constrained, and in the path only when allowed.
    @Test(arguments: [nil, true, false] as [Bool?], [nil, true, false] as [Bool?])
    func policyWinsOverConfigurationAndOptInDecidesVisibility(user: Bool?, configured: Bool?) {
        let expected = user ?? configured ?? false
        let evaluator = Self.evaluator(configured: configured)
        let context = NetworkContext(policy: Self.policy(user))
        let statuses = evaluator.interfaces(in: Self.state(), context: context)
        let dish = statuses.first { $0.link.name == "sat0" }!
        #expect(dish.isUltraConstrained == expected)
        #expect(dish.isConstrained == expected)
        for allows in [false, true] {
            let parameters = PathParameters(allowsUltraConstrained: allows)
            let path = evaluator.path(in: Self.state(), context: context, parameters: parameters)
            let names = path.availableInterfaces.map(\.name)
            #expect(names == (expected && !allows ? ["eth0"] : ["eth0", "sat0"]))
            #expect(path.availableInterfaces.last?.isUltraConstrained == (expected && allows))
            // Wired carries both families, so the path itself is not ultra-constrained either way.
            #expect(!path.isUltraConstrained && !path.isConstrained)
        }
    }

    @Test func theSystemPathIncludesItAndAClientWithoutOptInDoesNot() {
        let evaluator = Self.evaluator(configured: true)
        let state = Self.state(wiredUp: false)
        let system = evaluator.path(in: state)
        #expect(system.status == .satisfied)
        #expect(system.isUltraConstrained && system.isConstrained)
        #expect(system.availableInterfaces.map(\.name) == ["sat0"])
        #expect(evaluator.path(in: state, parameters: .system) == system)
        // As if the interface did not exist: no other interface, so noInterfaces (a reason older clients know).
        #expect(evaluator.path(in: state, parameters: .unrestricted) == .unsatisfied(.noInterfaces))
        let optedIn = evaluator.path(in: state, parameters: PathParameters(allowsUltraConstrained: true))
        #expect(optedIn == system)
    }

    /// The daemon hands a client without requirements the system path when `sharesSystemPath` says so: it must be
    /// the path the client's parameters give, whatever the interfaces, and refuse whenever it would not be.
    @Test(arguments: [nil, true, false] as [Bool?], [true, false])
    func sharingTheSystemPathIsExactlyWhenTheParametersGiveIt(configured: Bool?, wiredUp: Bool) {
        let evaluator = Self.evaluator(configured: configured)
        let statuses = evaluator.interfaces(in: Self.state(wiredUp: wiredUp), context: NetworkContext())
        let system = evaluator.path(from: statuses, parameters: .system)
        let others: [PathParameters] = [
            .unrestricted, .system, PathParameters(prohibitsExpensive: true),
            PathParameters(allowsUltraConstrained: true, routingUser: 1000), PathParameters(family: .ipv6),
        ]
        for parameters in others where PathEvaluator.sharesSystemPath(parameters, interfaces: statuses) {
            #expect(evaluator.path(from: statuses, parameters: parameters) == system)
        }
        #expect(PathEvaluator.sharesSystemPath(.unrestricted, interfaces: statuses) == (configured != true))
        // The hub's shortcut for the commonest parameters says the same, and rests on `.unrestricted` being `.system`
        // but for the opt-in.
        #expect(
            PathEvaluator.unrestrictedSharesSystemPath(interfaces: statuses)
                == PathEvaluator.sharesSystemPath(.unrestricted, interfaces: statuses))
        var optedIn = PathParameters.unrestricted
        optedIn.allowsUltraConstrained = true
        #expect(optedIn == .system)
        #expect(!PathEvaluator.sharesSystemPath(PathParameters(routingUser: 1000), interfaces: statuses))
        if configured == true && !wiredUp {
            #expect(evaluator.path(from: statuses, parameters: .unrestricted) != system)
        }
    }

    @Test func theReasonIsTheOneWithoutTheHiddenInterface() {
        let evaluator = Self.evaluator(configured: true)
        let state = makeState(
            [makeLoopback(), makeLink(2, "eth0", flags: [.up]), Self.dish],
            addresses: [makeAddress(3, "198.51.100.10")], routes: [makeRoute(3, via: "198.51.100.1")])
        // eth0 is up without carrier: that is as far as any visible interface got.
        #expect(evaluator.path(in: state, parameters: .unrestricted) == .unsatisfied(.noCarrier))
        #expect(evaluator.path(in: state).status == .satisfied)
    }

    @Test func aFamilyLeavingBySatelliteMakesThePathUltraConstrained() {
        let evaluator = Self.evaluator(configured: true)
        let path = evaluator.path(in: Self.state(ipv6OnlyOverSatellite: true))
        #expect(path.availableInterfaces.map(\.name) == ["eth0", "sat0"])
        #expect(path.isUltraConstrained && path.isConstrained)
        let hidden = evaluator.path(in: Self.state(ipv6OnlyOverSatellite: true), parameters: .unrestricted)
        #expect(hidden.availableInterfaces.map(\.name) == ["eth0"])
        #expect(!hidden.supportsIPv6 && !hidden.isUltraConstrained && !hidden.isConstrained)
    }

    @Test func aTunnelOverASatelliteLinkIsUltraConstrainedToo() {
        let evaluator = Self.evaluator(configured: true)
        let state = makeState(
            [makeLoopback(), Self.dish, makeTunnel(4)],
            addresses: [makeAddress(3, "198.51.100.10"), makeAddress(4, "10.4.0.2")],
            routes: [makeRoute(3, via: "198.51.100.1", metric: 600), makeRoute(4, via: nil, metric: 50)])
        let tunnel = evaluator.interfaces(in: state).first { $0.link.name == "wg0" }!
        #expect(tunnel.carrier == 3)
        #expect(tunnel.isUltraConstrained && tunnel.isConstrained)
        #expect(evaluator.path(in: state, parameters: .unrestricted) == .unsatisfied(.noInterfaces))
        #expect(evaluator.path(in: state).availableInterfaces.map(\.name) == ["sat0", "wg0"])
    }

    @Test func otherParametersStillApplyToAClientThatOptedIn() {
        let evaluator = Self.evaluator(configured: true)
        let state = Self.state(wiredUp: false)
        let noConstrained = PathParameters(prohibitsConstrained: true, allowsUltraConstrained: true)
        #expect(evaluator.path(in: state, parameters: noConstrained) == .unsatisfied(.onlyConstrainedInterfaces))
        let wifiOnly = PathParameters(requiredInterfaceKind: .wifi, allowsUltraConstrained: true)
        #expect(evaluator.path(in: state, parameters: wifiOnly) == .unsatisfied(.onlyProhibitedInterfaces))
    }

    @Test func theGatesCountAnUltraConstrainedPathAsMetered() {
        let path = Self.evaluator(configured: true).path(in: Self.state(wiredUp: false))
        let verdict = SystemPolicyGate.Verdict(path)
        #expect(verdict.isOnline && !verdict.isUnmetered)
        // Even a path that says ultra-constrained without constrained (an older model's value) is not unmetered.
        var odd = path
        odd.isConstrained = false
        #expect(!SystemPolicyGate.Verdict(odd).isUnmetered)
    }

    @Test func anEmptyPolicyForgetsTheNetworkAndUltraAloneIsRemembered() {
        #expect(NetworkPolicy().isEmpty)
        #expect(!NetworkPolicy(isUltraConstrained: true).isEmpty)
        #expect(!NetworkPolicy(isUltraConstrained: false).isEmpty)
        var policy = Policy()
        policy[Self.satellite] = NetworkPolicy(isUltraConstrained: true)
        #expect(policy.networks.count == 1)
        policy[Self.satellite].isUltraConstrained = nil
        #expect(policy.networks.isEmpty)
    }

    @Test(arguments: ["true", "Yes", "1"])
    func theConfigurationSetsItByPattern(word: String) throws {
        let configuration = try Configuration.parse("[interface sat*]\nultra-constrained = \(word)\n")
        #expect(configuration.overrides == [InterfaceOverride(pattern: "sat*", isUltraConstrained: true)])
        #expect(configuration.warnings.isEmpty)
        #expect(Classifier(overrides: configuration.overrides).configuredUltraConstrained(Self.dish) == true)
        #expect(Classifier(overrides: configuration.overrides).configuredUltraConstrained(Self.wired) == nil)
    }

    @Test func theConfigurationRefusesABadValueAndADuplicate() {
        #expect(throws: ConfigurationError.invalidBoolean(line: 2, key: "ultra-constrained", value: "maybe")) {
            try Configuration.parse("[interface sat*]\nultra-constrained = maybe\n")
        }
        #expect(throws: ConfigurationError.duplicateKey(line: 3, key: "ultra-constrained", firstLine: 2)) {
            try Configuration.parse("[interface sat*]\nultra-constrained = no\nultra-constrained = yes\n")
        }
        let first = try? Configuration.parse(
            "[interface sat0]\nultra-constrained = no\n[interface sat*]\nultra-constrained = yes\n")
        #expect(Classifier(overrides: first?.overrides ?? []).configuredUltraConstrained(Self.dish) == false)
    }
}
