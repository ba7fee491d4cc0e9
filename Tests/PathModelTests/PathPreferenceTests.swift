// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PathModel

/// Which usable interface leads the path, and what the path then reports.
@Suite struct PathPreferenceTests {
    let evaluator = PathEvaluator()

    static func link(_ kind: InterfaceKind, _ index: Int32) -> Link {
        switch kind {
        case .wired: return makeLink(index, "eth\(index)")
        case .wifi: return makeWifi(index, "wlan\(index)")
        case .cellular: return makeModem(index, "wwan\(index)")
        case .other: return makeTunnel(index, "wg\(index)")
        case .loopback: return makeLoopback()
        }
    }

    static let pathKinds: [InterfaceKind] = [.wired, .wifi, .cellular, .other]

    /// Every ordered pair of kinds, with the less preferred one given the lower index and the lower metric.
    @Test(arguments: pathKinds, pathKinds)
    func kindsComeInPreferenceOrder(_ first: InterfaceKind, _ second: InterfaceKind) {
        guard first.preferenceRank < second.preferenceRank else { return }
        let state = usableState([
            usableIPv4(Self.link(second, 2), host: 2, metric: 0), usableIPv4(Self.link(first, 3), host: 2, metric: 900),
        ])
        let path = evaluator.path(in: state)
        #expect(path.availableInterfaces.map(\.kind) == [first, second])
        #expect(path.isExpensive == (first == .cellular))
    }

    @Test func allFourInOrder() {
        let state = usableState(
            [InterfaceKind.other, .cellular, .wifi, .wired].enumerated().map {
                usableIPv4(Self.link($0.element, Int32($0.offset + 2)), host: 2)
            })
        #expect(evaluator.path(in: state).availableInterfaces.map(\.name) == ["eth5", "wlan4", "wwan3", "wg2"])
    }

    @Test func withinAKindTheLowerMetricWinsThenTheLowerIndex() {
        let state = usableState([
            usableIPv4(makeLink(2, "eth0"), host: 2, metric: 200),
            usableIPv4(makeLink(3, "eth1"), host: 2, metric: 100),
            usableIPv4(makeLink(4, "eth2"), host: 2, metric: 100),
        ])
        #expect(evaluator.path(in: state).availableInterfaces.map(\.name) == ["eth1", "eth2", "eth0"])
    }

    @Test(arguments: [
        ([InterfaceKind.wired, .cellular], false), ([.cellular], true), ([.cellular, .other], true),
        ([.wifi, .cellular], false), ([.other], false),
    ])
    func isExpensiveFollowsThePrimary(_ kinds: [InterfaceKind], _ expensive: Bool) {
        let state = usableState(
            kinds.enumerated().map { usableIPv4(Self.link($0.element, Int32($0.offset + 2)), host: 2) })
        let path = evaluator.path(in: state)
        #expect(path.isExpensive == expensive)
        // A tunnel (wg) rides on the best interface that is not one, and costs what it costs.
        let carrierIsCellular = kinds.first { $0 != .other } == .cellular
        #expect(
            path.availableInterfaces.map(\.isExpensive)
                == kinds.map { $0 == .cellular || ($0 == .other && carrierIsCellular) })
    }

    @Test func anExpensiveOverrideOnTheSecondaryDoesNotMakeThePathExpensive() {
        let classifier = Classifier(overrides: [InterfaceOverride(pattern: "wlan*", isExpensive: true)])
        let state = usableState([usableIPv4(makeLink(2, "eth0"), host: 2), usableIPv4(makeWifi(3), host: 2)])
        #expect(!PathEvaluator(classifier: classifier).path(in: state).isExpensive)
        let onlyWifi = usableState([usableIPv4(makeWifi(3), host: 2)])
        #expect(PathEvaluator(classifier: classifier).path(in: onlyWifi).isExpensive)
    }

    @Test func familiesAndGatewaysComeFromTheFirstInterfaceServingEach() {
        let eth = makeLink(2, "eth0")
        let wlan = makeWifi(3)
        let state = makeState(
            [eth, wlan],
            addresses: [makeAddress(2, "192.168.1.2"), makeAddress(3, "10.0.0.2"), makeAddress(3, "2001:db8::2")],
            routes: [
                makeRoute(2, via: "192.168.1.1", metric: 100), makeRoute(2, via: "192.168.1.254", metric: 200),
                makeRoute(3, via: "10.0.0.1", metric: 600), makeRoute(3, via: "fe80::1", metric: 600),
                makeRoute(3, via: "fe80::1", metric: 600, table: 100),
            ])
        let path = evaluator.path(in: state)
        #expect(path.supportsIPv4 && path.supportsIPv6)
        #expect(path.availableInterfaces.map(\.name) == ["eth0", "wlan0"])
        #expect(path.gateways == [ip("192.168.1.1"), ip("192.168.1.254"), ip("fe80::1")])
    }

    @Test(arguments: [
        (["10.0.0.2"], true, false), (["2001:db8::2"], false, true), (["10.0.0.2", "2001:db8::2"], true, true),
    ])
    func supportsTheFamiliesThatHaveAnAddressAndARoute(_ addresses: [String], _ v4: Bool, _ v6: Bool) {
        let state = makeState(
            [makeLink(2, "eth0")], addresses: addresses.map { makeAddress(2, $0) },
            routes: [makeRoute(2, via: "10.0.0.1"), makeRoute(2, via: "fe80::1")])
        let path = evaluator.path(in: state)
        #expect(path.supportsIPv4 == v4 && path.supportsIPv6 == v6)
        #expect(path.gateways.map(\.family) == (v4 ? [.ipv4] : []) + (v6 ? [.ipv6] : []))
    }

    @Test func onlyUsableInterfacesAreAvailable() {
        let state = makeState(
            [makeLink(2, "eth0"), makeWifi(3, flags: [.up]), makeModem(4)],
            addresses: [makeAddress(2, "192.168.1.2"), makeAddress(3, "10.0.0.2"), makeAddress(4, "fe80::2")],
            routes: [makeRoute(2, via: "192.168.1.1"), makeRoute(3, via: "10.0.0.1"), makeRoute(4, via: "fe80::1")])
        #expect(evaluator.path(in: state).availableInterfaces.map(\.name) == ["eth0"])
        #expect(!evaluator.path(in: state).isConstrained)
    }
}
