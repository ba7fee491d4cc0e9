// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PathModel

/// Why a path is unsatisfied, and which addresses count.
@Suite struct PathEvaluatorTests {
    let evaluator = PathEvaluator()
    let eth = makeLink(2, "eth0")

    @Test func nothingButLoopbackMeansNoInterfaces() {
        #expect(evaluator.path(in: KernelState()) == .unsatisfied(.noInterfaces))
        let state = makeState(
            [makeLoopback()], addresses: [makeAddress(1, "127.0.0.1", prefix: 8, scope: .host)])
        #expect(evaluator.path(in: state) == .unsatisfied(.noInterfaces))
    }

    @Test func loopbackIsNeverInAPathEvenWithAGlobalAddressAndARoute() {
        // Anycast setups put global addresses on lo; a default route through it is still not a path.
        let state = makeState(
            [makeLoopback()], addresses: [makeAddress(1, "203.0.113.1", prefix: 32)], routes: [makeRoute(1, via: nil)])
        #expect(evaluator.path(in: state) == .unsatisfied(.noInterfaces))
        #expect(evaluator.interfaces(in: state).map(\.readiness) == [.usable])
    }

    @Test(
        arguments: [
            ([LinkFlags()], UnsatisfiedReason.interfacesDown),
            ([[.lowerUp]], .interfacesDown),
            ([[.up]], .noCarrier),
            ([[.up, .lowerUp]], .noCarrier),
            ([[], [.up]], .noCarrier),
            ([[], [.up], runningFlags], .noAddress),
        ] as [([LinkFlags], UnsatisfiedReason)])
    func namesTheFurthestStageReached(_ flags: [LinkFlags], _ reason: UnsatisfiedReason) {
        let links = flags.enumerated().map { makeLink(Int32($0.offset + 2), "eth\($0.offset)", flags: $0.element) }
        #expect(evaluator.path(in: makeState(links + [makeLoopback()])) == .unsatisfied(reason))
    }

    @Test(
        arguments: [
            ("169.254.3.4", AddressScope.universe, false), ("fe80::1", .link, false), ("fe80::1", .universe, false),
            ("10.0.0.2", .link, false), ("10.0.0.2", .host, false), ("10.0.0.2", .nowhere, false),
            ("127.0.0.2", .universe, false), ("::1", .universe, false),
        ] as [(String, AddressScope, Bool)])
    func addressesThatStayOnTheLinkDoNotCount(_ text: String, _ scope: AddressScope, _ tentative: Bool) {
        let address = makeAddress(2, text, scope: scope, tentative: tentative)
        let state = makeState([eth], addresses: [address], routes: [makeRoute(2, via: nil, family: address.family)])
        #expect(evaluator.path(in: state) == .unsatisfied(.noAddress))
    }

    @Test(arguments: ["10.0.0.2", "2001:db8::2"])
    func tentativeAddressesDoNotCount(_ text: String) {
        let address = makeAddress(2, text, tentative: true)
        let state = makeState([eth], addresses: [address], routes: [makeRoute(2, via: nil, family: address.family)])
        #expect(evaluator.path(in: state) == .unsatisfied(.noAddress))
        var passed = state
        passed.apply(.addressAdded(makeAddress(2, text)))
        #expect(evaluator.path(in: passed).status == .satisfied)
    }

    @Test(arguments: [AddressScope.universe, .site])
    func globalAndSiteScopesCount(_ scope: AddressScope) {
        let state = makeState(
            [eth], addresses: [makeAddress(2, "fec0::2", scope: scope)], routes: [makeRoute(2, via: "fe80::1")])
        #expect(evaluator.path(in: state).status == .satisfied)
    }

    @Test func anAddressWithoutADefaultRouteIsNoDefaultRoute() {
        let state = makeState([eth], addresses: [makeAddress(2, "10.0.0.2")])
        #expect(evaluator.path(in: state) == .unsatisfied(.noDefaultRoute))
    }

    @Test func aRouteOfTheOtherFamilyDoesNotHelp() {
        let state = makeState([eth], addresses: [makeAddress(2, "10.0.0.2")], routes: [makeRoute(2, via: "fe80::1")])
        #expect(evaluator.path(in: state) == .unsatisfied(.noDefaultRoute))
        #expect(evaluator.status(of: eth, in: state).readiness == .noRoute)
    }

    @Test func aRouteThroughAnotherInterfaceDoesNotHelp() {
        let wlan = makeWifi(3)
        let state = makeState(
            [eth, wlan], addresses: [makeAddress(2, "10.0.0.2")], routes: [makeRoute(3, via: "192.168.0.1")])
        #expect(evaluator.path(in: state) == .unsatisfied(.noDefaultRoute))
    }

    @Test func downBeatsEverythingElseOnTheSameLink() {
        let down = makeLink(2, "eth0", flags: [])
        let state = makeState([down], addresses: [makeAddress(2, "10.0.0.2")], routes: [makeRoute(2, via: nil)])
        #expect(evaluator.status(of: down, in: state).readiness == .down)
        #expect(evaluator.status(of: down, in: state).supportedFamilies.isEmpty)
    }

    @Test func aSplitDefaultIsARouteToTheInternet() {
        let tunnel = makeTunnel(7)
        let state = makeState(
            [tunnel], addresses: [makeAddress(7, "10.8.0.2", prefix: 32)],
            routes: [
                makeRoute(7, via: nil, family: .ipv4, prefixLength: 1, highByte: 0),
                makeRoute(7, via: nil, family: .ipv4, prefixLength: 1, highByte: 128),
            ])
        let path = evaluator.path(in: state)
        #expect(path.status == .satisfied && path.supportsIPv4 && !path.supportsIPv6 && path.gateways.isEmpty)
        #expect(
            path.availableInterfaces == [
                PathInterface(index: 7, name: "wg0", kind: .other, isExpensive: false, isTunnel: true)
            ])
    }

    @Test func interfacesListsEveryLinkByIndexLoopbackIncluded() {
        let state = makeState([makeWifi(3), eth, makeLoopback()])
        #expect(evaluator.interfaces(in: state).map(\.link.name) == ["lo", "eth0", "wlan0"])
    }
}
