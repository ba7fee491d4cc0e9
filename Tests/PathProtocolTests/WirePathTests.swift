// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import Testing

@Suite struct WirePathTests {
    let codec = VarlinkCodec()

    static let paths: [Path] = [
        .unsatisfied(.noInterfaces),
        .unsatisfied(.noDefaultRoute),
        Path(
            status: .satisfied,
            availableInterfaces: [
                PathInterface(index: 2, name: "eth0", kind: .wired, isExpensive: false),
                PathInterface(index: 5, name: "wwan0", kind: .cellular, isExpensive: true),
            ],
            isExpensive: false, isConstrained: true, supportsIPv4: true, supportsIPv6: true,
            gateways: [IPAddress("192.0.2.1")!, IPAddress("fe80::1")!]
        ),
    ]

    @Test(arguments: paths)
    func pathsRoundTripThroughJSON(path: Path) throws {
        let bytes = codec.encodeReply(Methods.PathReply(path: WirePath(path)), continues: true)
        let reply = try codec.decode(VarlinkReply<Methods.PathReply>.self, from: Array(bytes.dropLast()))
        #expect(reply.continues == true)
        #expect(try reply.parameters?.path.path() == path)
    }

    @Test func wireNamesAreTheInterfaceDefinitions() {
        let wire = WirePath(Self.paths[2])
        #expect(wire.status == "satisfied")
        #expect(wire.availableInterfaces.map(\.type) == ["wired", "cellular"])
        #expect(wire.gateways == ["192.0.2.1", "fe80::1"])
        #expect(WirePath(Self.paths[1]).unsatisfiedReason == "noDefaultRoute")
    }

    @Test func unknownValuesAreRejected() {
        var wire = WirePath(Self.paths[2])
        wire.availableInterfaces[0].type = "satellite"
        #expect(throws: WireFormatError.unknownValue(field: "type", value: "satellite")) { try wire.path() }
        wire = WirePath(Self.paths[0])
        wire.status = "maybe"
        #expect(throws: WireFormatError.unknownValue(field: "status", value: "maybe")) { try wire.path() }
    }

    @Test func everyEnumValueIsInTheInterfaceDefinition() {
        let definition = VarlinkInterfaces.pathmondDescription
        for reason in UnsatisfiedReason.allCases { #expect(definition.contains(reason.rawValue)) }
        for kind in InterfaceKind.allCases { #expect(definition.contains(kind.rawValue)) }
        for readiness in InterfaceReadiness.allCases { #expect(definition.contains(readiness.wireName)) }
    }

    @Test func routesNameTheirDestination() {
        let route = DefaultRoute(family: .ipv6, metric: 1024, interfaceIndex: 3, gateway: IPAddress("fe80::1"))
        #expect(WireRoute(route).destination == "::/0")
        let half = DefaultRoute(family: .ipv4, prefixLength: 1, destinationHighByte: 128, interfaceIndex: 3)
        #expect(WireRoute(half).destination == "128.0.0.0/1")
        #expect(WireRoute(half).gateway == nil)
    }
}
