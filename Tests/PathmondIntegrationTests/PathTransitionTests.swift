// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathMonitor
import Testing

/// The path follows real kernel changes in a namespace of the test's own.
@Suite(.serialized) struct PathTransitionTests {
    @Test func becomesSatisfiedWhenAddressAndDefaultRouteAppear() async throws {
        let scenario = try Scenario.start { try $0.addVeth("eth0", peer: "eth0-peer") }
        defer { #expect(scenario.tearDown() == 0) }
        let log = scenario.client.log

        // Carrier may still be on its way (linkwatch), so noCarrier can come first.
        let start = try await log.nextPath { $0.unsatisfiedReason == .noAddress }
        #expect(start.status == .unsatisfied)
        #expect(start.availableInterfaces.isEmpty)

        try scenario.namespace.ip("address add 192.0.2.10/24 dev eth0")
        let addressed = try await log.nextPath { $0.unsatisfiedReason == .noDefaultRoute }
        #expect(addressed.status == .unsatisfied)

        try scenario.namespace.ip("route add default via 192.0.2.1 dev eth0 metric 100")
        let satisfied = try await log.nextPath { $0.status == .satisfied }
        #expect(satisfied.interfaceNames == ["eth0"])
        #expect(satisfied.availableInterfaces.first?.kind == .wired)
        #expect(satisfied.gateways == [IPAddress("192.0.2.1")!])
        #expect(satisfied.supportsIPv4 && !satisfied.supportsIPv6)
        #expect(!satisfied.isExpensive)
    }

    @Test func preferredInterfaceMovesToTheFront() async throws {
        let scenario = try Scenario.start { namespace in
            try namespace.addVeth("wlan0", peer: "wlan0-peer")
            try namespace.ip("address add 198.51.100.10/24 dev wlan0")
            try namespace.ip("route add default via 198.51.100.1 dev wlan0 metric 600")
            try namespace.addVeth("wwan0", peer: "wwan0-peer")
            try namespace.ip("address add 203.0.113.10/24 dev wwan0")
            // The metrics NetworkManager gives Wi-Fi (600) and WWAN (700): the kernel prefers Wi-Fi as well.
            try namespace.ip("route add default via 203.0.113.1 dev wwan0 metric 700")
            try namespace.addVeth("eth0", peer: "eth0-peer")
            try namespace.ip("address add 192.0.2.10/24 dev eth0")
        }
        defer { #expect(scenario.tearDown() == 0) }
        let log = scenario.client.log

        // The kernel's choice leads; cellular makes nothing expensive while Wi-Fi leads.
        let wifiFirst = try await log.nextPath { $0.status == .satisfied }
        #expect(wifiFirst.interfaceNames == ["wlan0", "wwan0"])
        #expect(wifiFirst.availableInterfaces.map(\.kind) == [.wifi, .cellular])
        #expect(wifiFirst.availableInterfaces.map(\.isExpensive) == [false, true])
        #expect(!wifiFirst.isExpensive)

        try scenario.namespace.ip("route add default via 192.0.2.1 dev eth0 metric 100")
        let wiredFirst = try await log.nextPath { $0.interfaceNames.first == "eth0" }
        #expect(wiredFirst.interfaceNames == ["eth0", "wlan0", "wwan0"])

        // Two wired interfaces: the lower metric leads.
        try scenario.namespace.addVeth("eth1", peer: "eth1-peer")
        try scenario.namespace.ip("address add 192.0.2.20/24 dev eth1")
        try scenario.namespace.ip("route add default via 192.0.2.1 dev eth1 metric 10")
        let byMetric = try await log.nextPath { $0.interfaceNames.count == 4 }
        #expect(byMetric.interfaceNames == ["eth1", "eth0", "wlan0", "wwan0"])

        // Only cellular left: the path is expensive.
        try scenario.namespace.ip("link set eth0 down")
        try scenario.namespace.ip("link set eth1 down")
        try scenario.namespace.ip("link set wlan0 down")
        let cellularOnly = try await log.nextPath { $0.interfaceNames == ["wwan0"] }
        #expect(cellularOnly.isExpensive)
    }

    @Test func linksGoingDownGiveTheRightReasons() async throws {
        let scenario = try Scenario.start { try $0.addWiredUplink(routed: true) }
        defer { #expect(scenario.tearDown() == 0) }
        let log = scenario.client.log
        _ = try await log.nextPath { $0.status == .satisfied }

        // The peer going away takes the carrier (reported late by linkwatch), but keeps address and route.
        try scenario.namespace.farIP("link set eth0-peer down")
        _ = try await log.nextPath { $0.unsatisfiedReason == .noCarrier }
        try scenario.namespace.farIP("link set eth0-peer up")
        _ = try await log.nextPath { $0.status == .satisfied }

        // Administratively down: the kernel flushes the IPv4 default route without telling anyone.
        try scenario.namespace.ip("link set eth0 down")
        _ = try await log.nextPath { $0.unsatisfiedReason == .interfacesDown }
        try scenario.namespace.ip("link set eth0 up")
        // Up again, the address is still there but the hand-made default route is not: no default route.
        let reason = try await log.nextPath { $0.unsatisfiedReason != .interfacesDown }
        #expect(reason.unsatisfiedReason == .noDefaultRoute || reason.unsatisfiedReason == .noCarrier)
        _ = try await log.nextPath { $0.unsatisfiedReason == .noDefaultRoute }

        try scenario.namespace.ip("address flush dev eth0")
        _ = try await log.nextPath { $0.unsatisfiedReason == .noAddress }

        try scenario.namespace.ip("link del eth0")
        _ = try await log.nextPath { $0.unsatisfiedReason == .noInterfaces }
    }

    @Test func ipv6PathWithRouteInAnotherTable() async throws {
        let scenario = try Scenario.start { namespace in
            try namespace.addVeth("eth0", peer: "eth0-peer")
            try namespace.ip("-6 address add 2001:db8::10/64 dev eth0 nodad")
            try namespace.ip("-6 rule add table 100 pref 100")
        }
        defer { #expect(scenario.tearDown() == 0) }
        let log = scenario.client.log
        _ = try await log.nextPath { $0.unsatisfiedReason == .noDefaultRoute }

        // Policy routing: a default route in table 100, which a rule reaches, counts as much as one in main.
        try scenario.namespace.ip("-6 route add default via 2001:db8::1 dev eth0 table 100")
        let satisfied = try await log.nextPath { $0.status == .satisfied }
        #expect(satisfied.supportsIPv6 && !satisfied.supportsIPv4)
        #expect(satisfied.gateways == [IPAddress("2001:db8::1")!])

        try scenario.namespace.ip("-6 route del default via 2001:db8::1 dev eth0 table 100")
        _ = try await log.nextPath { $0.unsatisfiedReason == .noDefaultRoute }
    }

    @Test func unchangedPathsAreNotSentAgain() async throws {
        let scenario = try Scenario.start { try $0.addWiredUplink(routed: true) }
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
        // Count what the daemon sends on the wire: the client library would hide a duplicate.
        let raw = try RawClient(socketPath: scenario.daemon.socketPath)
        try raw.send(Array(#"{"method":"io.pathmond.WatchPath","more":true}"#.utf8) + [0])
        let first = try raw.receive()
        #expect(Self.status(of: first) == "satisfied")

        // Kernel changes that leave the path as it is: a second address, a non-default route, a new link.
        try scenario.namespace.ip("address add 192.0.2.11/24 dev eth0")
        try scenario.namespace.ip("route add 10.0.0.0/8 via 192.0.2.1 dev eth0")
        try scenario.namespace.addVeth("eth1", peer: "eth1-peer")
        // Then one that changes it; it must be the very next message on the wire.
        try scenario.namespace.ip("route del default via 192.0.2.1 dev eth0")
        let next = try raw.receive()
        #expect(Self.status(of: next) == "unsatisfied")
        #expect(next["continues"] as? Bool == true)
    }

    static func status(of reply: [String: Any]) -> String? {
        ((reply["parameters"] as? [String: Any])?["path"] as? [String: Any])?["status"] as? String
    }
}
