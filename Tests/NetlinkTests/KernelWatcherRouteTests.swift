// SPDX-License-Identifier: Apache-2.0
import NetlinkTestSupport
import PathModel
import Testing

@testable import Netlink

/// Which routes the watcher keeps: default routes and split defaults, in any table, one per next hop.
@Suite struct KernelWatcherRouteTests {
    @Test func multipathDefaultRouteBecomesOneRoutePerNextHop() async throws {
        try await withTestNamespace { namespace in
            try namespace.ip("address add 10.1.0.2/24 dev va")
            try namespace.ip("address add 10.2.0.2/24 dev vb")
            let va = try namespace.index(of: "va")
            let vb = try namespace.index(of: "vb")
            var stepper = try await BatchStepper.afterFirstDump(of: namespace)
            defer { stepper.stopWatching() }

            try namespace.ip("route add default metric 20 nexthop via 10.1.0.1 dev va nexthop via 10.2.0.1 dev vb")
            let expected: Set = [
                DefaultRoute(
                    family: .ipv4, metric: 20, interfaceIndex: va, gateway: IPAddress("10.1.0.1"), isMultipath: true),
                DefaultRoute(
                    family: .ipv4, metric: 20, interfaceIndex: vb, gateway: IPAddress("10.2.0.1"), isMultipath: true),
            ]
            try await stepper.waitUntil { $0.routes == expected }
            #expect((try await freshSnapshot(of: namespace)).routes.count == 2)

            try namespace.ip("route del default metric 20")
            try await stepper.waitUntil { $0.routes.isEmpty }
        }
    }

    @Test func onlyDefaultRoutesAndSplitDefaultsAreReported() async throws {
        try await withTestNamespace { namespace in
            try namespace.ip("address add 10.1.0.2/24 dev va")
            let va = try namespace.index(of: "va")
            var stepper = try await BatchStepper.afterFirstDump(of: namespace)
            defer { stepper.stopWatching() }

            try namespace.ip("route add 10.9.0.0/16 via 10.1.0.1 dev va")
            try namespace.ip("route add 198.51.100.7/32 dev va")
            try namespace.ip("route add 0.0.0.0/2 via 10.1.0.1 dev va")
            try namespace.ip("route add unreachable default metric 5")
            try namespace.ip("-6 route add 2001:db8:1::/48 dev va")
            try namespace.ip("route add 0.0.0.0/1 via 10.1.0.1 dev va")
            try namespace.ip("route add 128.0.0.0/1 via 10.1.0.1 dev va")
            try namespace.ip("-6 route add 8000::/1 dev va")
            let gateway = IPAddress("10.1.0.1")
            let expected: Set = [
                DefaultRoute(family: .ipv4, prefixLength: 1, interfaceIndex: va, gateway: gateway),
                DefaultRoute(
                    family: .ipv4, prefixLength: 1, destinationHighByte: 128, interfaceIndex: va, gateway: gateway),
                DefaultRoute(
                    family: .ipv6, prefixLength: 1, destinationHighByte: 0x80, metric: 1024, interfaceIndex: va),
            ]
            try await stepper.waitUntil { $0.routes == expected }
            let routeEvents = stepper.batches.flatMap(\.events).filter {
                if case .routeAdded = $0 { return true }
                return false
            }
            #expect(routeEvents.count == 3)
        }
    }

    @Test func routesInOtherTablesAreReported() async throws {
        try await withTestNamespace { namespace in
            try namespace.ip("address add 10.1.0.2/24 dev va")
            let va = try namespace.index(of: "va")
            var stepper = try await BatchStepper.afterFirstDump(of: namespace)
            defer { stepper.stopWatching() }

            try namespace.ip("route add default via 10.1.0.1 dev va table 100")
            try namespace.ip("route add default dev va table 1000 metric 3")
            let expected: Set = [
                DefaultRoute(family: .ipv4, table: 100, interfaceIndex: va, gateway: IPAddress("10.1.0.1")),
                DefaultRoute(family: .ipv4, table: 1000, metric: 3, interfaceIndex: va),
            ]
            try await stepper.waitUntil { $0.routes == expected }
            #expect(Set((try await freshSnapshot(of: namespace)).routes) == expected)
        }
    }

    @Test func replacingARouteIsFlagged() async throws {
        try await withTestNamespace { namespace in
            try namespace.ip("address add 10.1.0.2/24 dev va")
            let va = try namespace.index(of: "va")
            try namespace.ip("route add default via 10.1.0.1 dev va")
            var stepper = try await BatchStepper.afterFirstDump(of: namespace)
            defer { stepper.stopWatching() }

            try namespace.ip("route replace default via 10.1.0.9 dev va")
            let replacement = DefaultRoute(family: .ipv4, interfaceIndex: va, gateway: IPAddress("10.1.0.9"))
            try await stepper.waitUntil { $0.routes == [replacement] }
            #expect(stepper.batches.flatMap(\.events).contains(.routeAdded(replacement, replacing: true)))
        }
    }
}
