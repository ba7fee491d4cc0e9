// SPDX-License-Identifier: Apache-2.0
import PathModel

// Builders that keep the tests' tables short. Each default is what a healthy interface reports.

/// An address from text the test wrote; a typo is a bug in the test, so it stops the run.
func ip(_ text: String) -> IPAddress {
    guard let address = IPAddress(text) else { fatalError("test address \(text) does not parse") }
    return address
}

/// The flags of a link that is up with carrier.
let runningFlags: LinkFlags = [.up, .running, .lowerUp]

/// A link; Ethernet unless the caller says otherwise.
func makeLink(
    _ index: Int32, _ name: String, flags: LinkFlags = runningFlags, linkKind: String? = nil,
    hardwareType: UInt16 = HardwareType.ethernet, device: DeviceFacts = .unknown
) -> Link {
    Link(
        index: index, name: name, flags: flags, operState: flags.contains(.running) ? .up : .down, linkKind: linkKind,
        hardwareType: hardwareType, device: device)
}

/// The loopback interface as the kernel reports it.
func makeLoopback(flags: LinkFlags = [.up, .running, .loopback]) -> Link {
    makeLink(1, "lo", flags: flags, hardwareType: HardwareType.loopback)
}

/// A Wi-Fi station interface.
func makeWifi(_ index: Int32, _ name: String = "wlan0", flags: LinkFlags = runningFlags) -> Link {
    makeLink(index, name, flags: flags, device: DeviceFacts(deviceType: "wlan", hasWirelessExtensions: true))
}

/// A QMI modem interface.
func makeModem(_ index: Int32, _ name: String = "wwan0", flags: LinkFlags = runningFlags) -> Link {
    makeLink(index, name, flags: flags, device: DeviceFacts(deviceType: "wwan", driver: "qmi_wwan"))
}

/// A WireGuard tunnel.
func makeTunnel(_ index: Int32, _ name: String = "wg0", flags: LinkFlags = runningFlags) -> Link {
    makeLink(index, name, flags: flags, linkKind: "wireguard", hardwareType: HardwareType.none)
}

/// A global address (or whatever scope and flags the test asks for).
func makeAddress(
    _ index: Int32, _ text: String, prefix: UInt8? = nil, scope: AddressScope = .universe, tentative: Bool = false
) -> InterfaceAddress {
    let address = ip(text)
    return InterfaceAddress(
        interfaceIndex: index, address: address, prefixLength: prefix ?? (address.family == .ipv4 ? 24 : 64),
        scope: scope, isTentative: tentative)
}

/// A default route through `index`, with the gateway's family.
func makeRoute(
    _ index: Int32, via gateway: String?, family: AddressFamily? = nil, metric: UInt32 = 0, table: UInt32 = 254,
    prefixLength: UInt8 = 0, highByte: UInt8 = 0
) -> DefaultRoute {
    let router = gateway.map(ip)
    return DefaultRoute(
        family: family ?? router?.family ?? .ipv4, table: table, prefixLength: prefixLength,
        destinationHighByte: highByte, metric: metric, interfaceIndex: index, gateway: router)
}

/// A kernel state holding exactly these facts.
func makeState(
    _ links: [Link], addresses: [InterfaceAddress] = [], routes: [DefaultRoute] = []
) -> KernelState {
    KernelState(KernelSnapshot(links: links, addresses: addresses, routes: routes))
}

/// A link that is usable for IPv4: running, a global address, a default route.
func usableIPv4(_ link: Link, host: UInt8, metric: UInt32 = 0) -> (Link, InterfaceAddress, DefaultRoute) {
    (
        link, makeAddress(link.index, "10.\(link.index).0.\(host)"),
        makeRoute(link.index, via: "10.\(link.index).0.1", metric: metric)
    )
}

/// A state whose links are each usable for IPv4.
func usableState(_ entries: [(Link, InterfaceAddress, DefaultRoute)]) -> KernelState {
    makeState(entries.map(\.0), addresses: entries.map(\.1), routes: entries.map(\.2))
}

/// Wired eth0 (2), cellular wwan0 (4) and a GRE tunnel gre1 (5) whose endpoint is 198.18.0.9, each addressed, with
/// default routes over eth0 and wwan0 and the routes given for gre1; no decisions yet.
func tunnelOverTwoUplinks(tunnelRoutes: [DefaultRoute] = []) -> KernelSnapshot {
    KernelSnapshot(
        links: [
            makeLink(2, "eth0"), makeModem(4, "wwan0"),
            Link(
                index: 5, name: "gre1", flags: runningFlags, linkKind: "gre", hardwareType: 778,
                tunnel: TunnelEndpoints(remotes: [ip("198.18.0.9")])),
        ],
        addresses: [makeAddress(2, "192.0.2.10"), makeAddress(4, "203.0.113.10"), makeAddress(5, "10.9.0.2")],
        routes: [makeRoute(2, via: "192.0.2.1"), makeRoute(4, via: "203.0.113.1")] + tunnelRoutes)
}
