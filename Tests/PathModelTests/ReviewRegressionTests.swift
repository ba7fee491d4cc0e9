// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

/// Cases a review found: each is what a real network does, and what the model must say about it.
@Suite struct ReviewRegressionTests {
    @Test func vpnWithSplitDefaultLeadsThePathAndIsNotLeftForABetterOne() {
        // OpenVPN: tun0 holds 0.0.0.0/1 and 128.0.0.0/1; eth0 the plain default. The kernel sends all via tun0.
        let state = KernelState(
            KernelSnapshot(
                links: [makeLoopback(), makeLink(2, "eth0"), makeTunnel(5, "tun0")],
                addresses: [makeAddress(2, "192.0.2.10"), makeAddress(5, "10.8.0.2")],
                routes: [
                    makeRoute(2, via: "192.0.2.1", metric: 100),
                    makeRoute(5, via: nil, family: .ipv4, prefixLength: 1, highByte: 0),
                    makeRoute(5, via: nil, family: .ipv4, prefixLength: 1, highByte: 128),
                ]))
        let evaluator = PathEvaluator()
        let interfaces = evaluator.interfaces(in: state)
        let path = evaluator.path(from: interfaces)
        #expect(path.availableInterfaces.map(\.name) == ["tun0", "eth0"])
        let flow = Flow(interfaceName: "tun0", localAddress: ip("10.8.0.2"), remoteAddress: ip("198.51.100.7"))
        #expect(!FlowEvaluator.status(of: flow, interfaces: interfaces, pathForParameters: path).betterPathAvailable)
    }

    @Test func ipv4MappedAddressesUnmap() {
        #expect(ip("::ffff:c000:20a").unmappingIPv4 == ip("192.0.2.10"))
        #expect(ip("2001:db8::1").unmappingIPv4 == ip("2001:db8::1"))
        #expect(ip("192.0.2.1").unmappingIPv4 == ip("192.0.2.1"))
    }

    @Test func gatewayIdentitySurvivesItsNeighbourEntryFailing() {
        var state = KernelState(
            KernelSnapshot(
                links: [makeLoopback(), makeLink(2, "eth0")], addresses: [makeAddress(2, "192.0.2.10")],
                routes: [makeRoute(2, via: "192.0.2.1")],
                neighbours: [
                    Neighbour(interfaceIndex: 2, address: ip("192.0.2.1"), linkLayerAddress: "02:00:00:00:00:01")
                ]
            ))
        state.apply(.neighbourRemoved(interfaceIndex: 2, address: ip("192.0.2.1")))
        #expect(PathEvaluator().interfaces(in: state).last?.identity == .wired(gateway: "02:00:00:00:00:01"))
        // A neighbour that is no gateway goes as the kernel says.
        state.apply(
            .neighbourChanged(
                Neighbour(interfaceIndex: 2, address: ip("192.0.2.9"), linkLayerAddress: "02:00:00:00:00:09")))
        state.apply(.neighbourRemoved(interfaceIndex: 2, address: ip("192.0.2.9")))
        #expect(state.neighbour(ip("192.0.2.9"), on: 2) == nil)
    }

    @Test func wiredKeysAreCanonical() {
        #expect(NetworkKey("wired:AA:BB:CC:DD:EE:FF") == NetworkIdentity.wired(gateway: "aa:bb:cc:dd:ee:ff").key)
        #expect(NetworkKey("wired:gateway") == nil)
        #expect(NetworkKey("wired:aa:bb") == nil)
    }
}
