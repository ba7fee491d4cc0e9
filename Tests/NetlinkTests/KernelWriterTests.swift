// SPDX-License-Identifier: Apache-2.0
import NetlinkTestSupport
import PathModel
import Testing

@testable import Netlink

/// The writer's changes, seen by a watcher in the same namespace.
@Suite struct KernelWriterTests {
    @Test func addsAndDeletesRoutesAndAddresses() async throws {
        try await withTestNamespace { namespace in
            let va = try namespace.index(of: "va")
            let writer = try KernelWriter(namespacePath: namespace.path)
            var stepper = try await BatchStepper.afterFirstDump(of: namespace)
            defer { stepper.stopWatching() }

            let address4 = InterfaceAddress(interfaceIndex: va, address: IPAddress("10.1.0.2")!, prefixLength: 24)
            let address6 = InterfaceAddress(interfaceIndex: va, address: IPAddress("2001:db8::2")!, prefixLength: 64)
            try writer.addAddress(address4)
            try writer.addAddress(address6, skippingDuplicateAddressDetection: true)
            let routes: Set = [
                DefaultRoute(family: .ipv4, metric: 50, interfaceIndex: va, gateway: IPAddress("10.1.0.1")),
                DefaultRoute(family: .ipv4, table: 100, metric: 5, interfaceIndex: va),
                DefaultRoute(family: .ipv4, prefixLength: 1, destinationHighByte: 128, interfaceIndex: va),
                DefaultRoute(
                    family: .ipv6, table: 4000, metric: 1024, interfaceIndex: va, gateway: IPAddress("fe80::1")),
            ]
            for route in routes { try writer.addRoute(route) }
            try await stepper.waitUntil { $0.routes == routes && $0.addresses(of: va).contains(address6) }
            #expect(stepper.state.addresses(of: va).contains(address4))

            for route in routes { try writer.deleteRoute(route) }
            try writer.deleteAddress(address4)
            try await stepper.waitUntil { $0.routes.isEmpty && !$0.addresses(of: va).contains(address4) }
        }
    }

    @Test func replacesRoutesAndSetsLinksDownAndUp() async throws {
        try await withTestNamespace { namespace in
            let va = try namespace.index(of: "va")
            let writer = try KernelWriter(namespacePath: namespace.path)
            var stepper = try await BatchStepper.afterFirstDump(of: namespace)
            defer { stepper.stopWatching() }

            try writer.addAddress(
                InterfaceAddress(interfaceIndex: va, address: IPAddress("10.1.0.2")!, prefixLength: 24))
            try writer.addRoute(DefaultRoute(family: .ipv4, interfaceIndex: va, gateway: IPAddress("10.1.0.1")))
            let replacement = DefaultRoute(family: .ipv4, interfaceIndex: va, gateway: IPAddress("10.1.0.7"))
            try writer.addRoute(replacement, replacing: true)
            try await stepper.waitUntil { $0.routes == [replacement] }

            try writer.setLink(index: va, up: false)
            try await stepper.waitUntil { $0.links[va]?.flags.contains(.up) == false }
            #expect(stepper.state.routes.isEmpty)
            try writer.setLink(index: va, up: true)
            try await stepper.waitUntil { $0.links[va]?.flags.contains(.up) == true }
        }
    }

    @Test func reportsTheKernelsRefusalsAsTypedErrors() async throws {
        try await withTestNamespace { namespace in
            let va = try namespace.index(of: "va")
            let writer = try KernelWriter(namespacePath: namespace.path)
            let route = DefaultRoute(family: .ipv4, interfaceIndex: va)
            try writer.addRoute(route)
            #expect(throws: NetlinkError.exists) { try writer.addRoute(route) }
            try writer.deleteRoute(route)
            #expect(throws: NetlinkError.objectNotFound) { try writer.deleteRoute(route) }
            #expect(throws: NetlinkError.familyMismatch) {
                try writer.addRoute(DefaultRoute(family: .ipv6, interfaceIndex: va, gateway: IPAddress("10.0.0.1")))
            }
            #expect(throws: NetlinkError.self) { try writer.setLink(index: 9999, up: true) }
        }
    }
}
