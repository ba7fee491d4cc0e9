// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

/// Viability and better path, including the three scenarios of the seeds.
@Suite struct FlowEvaluatorTests {
    static let wifiAddress = "198.51.100.10"
    static let cellularAddress = "203.0.113.10"

    /// Wi-Fi (index 3) and cellular (index 4), each up or not.
    static func state(wifi: Bool, cellular: Bool) -> KernelState {
        var links = [makeLoopback(), makeWifi(3, flags: wifi ? runningFlags : [.up]), makeModem(4)]
        if !cellular { links.removeLast() }
        return KernelState(
            KernelSnapshot(
                links: links,
                addresses: [makeAddress(3, wifiAddress)] + (cellular ? [makeAddress(4, cellularAddress)] : []),
                routes: [makeRoute(3, via: "198.51.100.1")] + (cellular ? [makeRoute(4, via: "203.0.113.1")] : [])))
    }

    func status(_ flow: Flow, _ state: KernelState) -> FlowStatus {
        let evaluator = PathEvaluator()
        let interfaces = evaluator.interfaces(in: state)
        let path = evaluator.path(from: interfaces, parameters: flow.parameters)
        return FlowEvaluator.status(of: flow, interfaces: interfaces, pathForParameters: path)
    }

    let onWifi = Flow(interfaceName: "wlan0", localAddress: ip(wifiAddress), remoteAddress: ip("192.0.2.80"))
    let onCellular = Flow(interfaceName: "wwan0", localAddress: ip(cellularAddress), remoteAddress: ip("192.0.2.80"))

    @Test func onWifiWithNothingElseWifiDrops() {
        #expect(
            status(onWifi, Self.state(wifi: true, cellular: false))
                == FlowStatus(isViable: true, betterPathAvailable: false))
        #expect(
            status(onWifi, Self.state(wifi: false, cellular: false))
                == FlowStatus(isViable: false, betterPathAvailable: false))
    }

    @Test func onWifiWifiDropsWithCellularUp() {
        #expect(status(onWifi, Self.state(wifi: true, cellular: true)).betterPathAvailable == false)
        #expect(
            status(onWifi, Self.state(wifi: false, cellular: true))
                == FlowStatus(
                    isViable: false, betterPathAvailable: true, betterInterface: "wwan0",
                    betterInterfaceAddresses: [ip(Self.cellularAddress)]))
    }

    @Test func onCellularWifiComesUp() {
        #expect(
            status(onCellular, Self.state(wifi: false, cellular: true))
                == FlowStatus(isViable: true, betterPathAvailable: false))
        #expect(
            status(onCellular, Self.state(wifi: true, cellular: true))
                == FlowStatus(
                    isViable: true, betterPathAvailable: true, betterInterface: "wlan0",
                    betterInterfaceAddresses: [ip(Self.wifiAddress)]))
    }

    @Test func betterPathRespectsTheParameters() {
        var frugal = onWifi
        frugal.parameters = PathParameters(prohibitsExpensive: true)
        #expect(
            status(frugal, Self.state(wifi: false, cellular: true))
                == FlowStatus(isViable: false, betterPathAvailable: false))
    }

    @Test func viabilityNeedsTheAddressAndARoute() {
        var state = Self.state(wifi: true, cellular: false)
        state.apply(.addressRemoved(makeAddress(3, Self.wifiAddress)))
        #expect(!status(onWifi, state).isViable)

        // On-link remote without a default route is still reachable; an off-link one is not.
        var onLink = Self.state(wifi: true, cellular: false)
        onLink.apply(.routeRemoved(makeRoute(3, via: "198.51.100.1")))
        #expect(!status(onWifi, onLink).isViable)
        var neighbour = onWifi
        neighbour.remoteAddress = ip("198.51.100.77")
        #expect(status(neighbour, onLink).isViable)
        // A remote of the other family cannot be reached from an IPv4 local address.
        neighbour.remoteAddress = ip("2001:db8::1")
        #expect(!status(neighbour, Self.state(wifi: true, cellular: false)).isViable)
    }

    @Test func flowOnADeletedInterface() {
        var state = Self.state(wifi: true, cellular: true)
        state.apply(.linkRemoved(index: 3))
        #expect(
            status(onWifi, state)
                == FlowStatus(
                    isViable: false, betterPathAvailable: true, betterInterface: "wwan0",
                    betterInterfaceAddresses: [ip(Self.cellularAddress)]))
    }
}
