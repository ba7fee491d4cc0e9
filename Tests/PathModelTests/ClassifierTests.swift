// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PathModel

/// Overrides on top of the built-in rules: first match wins per field, and forcing cellular implies expensive.
@Suite struct ClassifierTests {
    let veth = makeLink(5, "veth0", linkKind: "veth")

    @Test(
        arguments: [
            (InterfaceKind.wifi, nil, InterfaceClass(kind: .wifi, isExpensive: false)),
            (.cellular, nil, InterfaceClass(kind: .cellular, isExpensive: true)),
            (.cellular, false, InterfaceClass(kind: .cellular, isExpensive: false)),
            (.other, nil, InterfaceClass(kind: .other, isExpensive: false)),
            (.other, true, InterfaceClass(kind: .other, isExpensive: true)),
            (.wired, nil, InterfaceClass(kind: .wired, isExpensive: false)),
        ] as [(InterfaceKind, Bool?, InterfaceClass)])
    func typesAVethByOverride(_ kind: InterfaceKind, _ expensive: Bool?, _ expected: InterfaceClass) {
        let classifier = Classifier(overrides: [InterfaceOverride(pattern: "veth*", kind: kind, isExpensive: expensive)]
        )
        #expect(classifier.classify(veth) == expected)
    }

    @Test func withoutOverridesItIsTheBuiltInRules() {
        for link in [veth, makeModem(3), makeWifi(2), makeTunnel(7), makeLoopback()] {
            #expect(Classifier().classify(link) == Classification.classify(link))
        }
    }

    @Test func anOverrideThatDoesNotMatchChangesNothing() {
        let classifier = Classifier(overrides: [InterfaceOverride(pattern: "eth*", kind: .cellular, isExpensive: true)])
        #expect(classifier.classify(veth) == InterfaceClass(kind: .wired, isExpensive: false))
    }

    @Test func expensiveAloneKeepsTheDetectedKind() {
        let classifier = Classifier(overrides: [InterfaceOverride(pattern: "wlan0", isExpensive: true)])
        #expect(classifier.classify(makeWifi(2)) == InterfaceClass(kind: .wifi, isExpensive: true))
        let cheapModem = Classifier(overrides: [InterfaceOverride(pattern: "wwan0", isExpensive: false)])
        #expect(cheapModem.classify(makeModem(3)) == InterfaceClass(kind: .cellular, isExpensive: false))
    }

    @Test func theFirstMatchWinsForEachField() {
        let classifier = Classifier(overrides: [
            InterfaceOverride(pattern: "veth0", kind: .wifi),
            InterfaceOverride(pattern: "veth*", kind: .cellular, isExpensive: true),
            InterfaceOverride(pattern: "*", kind: .other, isExpensive: false),
        ])
        // Kind from the first section, expensive from the second: fields resolve independently.
        #expect(classifier.classify(veth) == InterfaceClass(kind: .wifi, isExpensive: true))
        #expect(classifier.classify(makeLink(6, "veth1")) == InterfaceClass(kind: .cellular, isExpensive: true))
        #expect(classifier.classify(makeLink(7, "eth0")) == InterfaceClass(kind: .other, isExpensive: false))
    }

    @Test func anEarlierExpensiveFalseBeatsALaterForcedCellular() {
        let classifier = Classifier(overrides: [
            InterfaceOverride(pattern: "veth*", isExpensive: false),
            InterfaceOverride(pattern: "veth0", kind: .cellular),
        ])
        #expect(classifier.classify(veth) == InterfaceClass(kind: .cellular, isExpensive: false))
    }

    @Test func forcingAnotherKindKeepsTheDetectedCost() {
        // A tethered phone is detected wired and expensive; calling it wired again keeps it expensive.
        let tether = makeLink(4, "usb0", device: DeviceFacts(driver: "rndis_host"))
        let classifier = Classifier(overrides: [InterfaceOverride(pattern: "usb0", kind: .wired)])
        #expect(classifier.classify(tether) == InterfaceClass(kind: .wired, isExpensive: true))
    }

    @Test func configurationBuildsTheSameClassifier() throws {
        let configuration = try Configuration.parse("[interface veth*]\ntype = cellular\nexpensive = no\n")
        #expect(configuration.classifier.classify(veth) == InterfaceClass(kind: .cellular, isExpensive: false))
    }

    // An override whose pattern matches "lo" (e.g. `[interface *]` with
    // `type = wired`) turns loopback into another kind, so PathEvaluator counts lo as a candidate: with only lo
    // present the path says noAddress instead of noInterfaces, and a global address plus a route on lo (anycast
    // setups) would put lo into the path. Overrides should never change the kind of a loopback link.
    @Test(arguments: [InterfaceKind.wired, .wifi, .cellular, .other])
    func overridesNeverTurnLoopbackIntoAPathInterface(_ kind: InterfaceKind) {
        let classifier = Classifier(overrides: [InterfaceOverride(pattern: "*", kind: kind)])
        #expect(classifier.classify(makeLoopback()).kind == .loopback)
        let evaluator = PathEvaluator(classifier: classifier)
        let loopbackOnly = makeState(
            [makeLoopback()], addresses: [makeAddress(1, "127.0.0.1", prefix: 8, scope: .host)])
        #expect(evaluator.path(in: loopbackOnly) == .unsatisfied(.noInterfaces))
    }
}
