// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PathModel

/// A route's hash packs its fields into a few words: routes that differ in any one field must hash apart (a field
/// left out of the packing would make every such pair collide), and equal routes alike.
@Suite struct DefaultRouteTests {
    static let base = DefaultRoute(
        family: .ipv4, table: 254, prefixLength: 1, destinationHighByte: 128, metric: 50, interfaceIndex: 7,
        gateway: IPAddress("192.0.2.1"), isMultipath: false, nexthopID: nil)

    @Test func routesThatDifferInOneFieldHashApart() {
        var variants: [DefaultRoute] = []
        func vary(_ change: (inout DefaultRoute) -> Void) {
            var route = Self.base
            change(&route)
            variants.append(route)
        }
        vary { $0.family = .ipv6 }
        vary { $0.table = 100 }
        vary { $0.table = 254 + (1 << 16) }
        vary { $0.prefixLength = 0 }
        vary { $0.destinationHighByte = 0 }
        vary { $0.metric = 51 }
        vary { $0.metric = 50 + (1 << 31) }
        vary { $0.interfaceIndex = 8 }
        vary { $0.interfaceIndex = -7 }
        vary { $0.gateway = nil }
        vary { $0.gateway = IPAddress("192.0.2.2") }
        vary { $0.gateway = IPAddress("fe80::1") }
        vary { $0.isMultipath = true }
        vary { $0.nexthopID = 0 }
        vary { $0.nexthopID = 7 }
        for variant in variants {
            #expect(variant != Self.base)
            #expect(variant.hashValue != Self.base.hashValue, "\(variant)")
        }
        #expect(Set(variants.map(\.hashValue)).count == variants.count)
        let copy = Self.base
        #expect(copy.hashValue == Self.base.hashValue)
        #expect(Set(variants + [Self.base, copy]).count == variants.count + 1)
    }
}
