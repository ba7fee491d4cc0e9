// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PathModel

/// The built-in rules, one branch per row, from kernel facts alone.
@Suite struct ClassificationTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var label: String
        var link: Link
        var expected: InterfaceClass
        var testDescription: String { label }
    }

    static let rows: [Row] = [
        Row(label: "loopback by flag", link: makeLink(1, "lo", flags: [.up, .loopback]), expected: .init(.loopback)),
        Row(
            label: "loopback by hardware type", link: makeLink(1, "lo", hardwareType: HardwareType.loopback),
            expected: .init(.loopback)),
        Row(
            label: "Wi-Fi by DEVTYPE", link: makeLink(2, "w", device: .init(deviceType: "wlan")), expected: .init(.wifi)
        ),
        Row(
            label: "Wi-Fi by phy80211 alone", link: makeLink(2, "w", device: .init(hasWirelessExtensions: true)),
            expected: .init(.wifi)),
        Row(
            label: "Wi-Fi before cellular",
            link: makeLink(2, "w", device: .init(deviceType: "wlan", driver: "qmi_wwan")), expected: .init(.wifi)),
        Row(label: "cellular by DEVTYPE", link: makeLink(3, "c", device: .init(deviceType: "wwan")), expected: .cell),
        Row(label: "cellular by link kind", link: makeLink(3, "c", linkKind: "wwan"), expected: .cell),
        Row(label: "cellular by qmimux", link: makeLink(3, "c", linkKind: "qmimux"), expected: .cell),
        Row(label: "cellular by raw IP", link: makeLink(3, "c", hardwareType: HardwareType.rawIP), expected: .cell),
        Row(
            label: "tunnel over raw IP stays cellular",
            link: makeLink(3, "c", linkKind: "gre", hardwareType: HardwareType.rawIP), expected: .cell),
        Row(label: "PPP", link: makeLink(4, "ppp0", linkKind: "ppp", hardwareType: HardwareType.ppp), expected: .other),
        Row(label: "PPP without kind", link: makeLink(4, "ppp0", hardwareType: HardwareType.ppp), expected: .other),
        Row(label: "veth", link: makeLink(5, "veth0", linkKind: "veth"), expected: .init(.wired)),
        Row(label: "bridge", link: makeLink(5, "br0", linkKind: "bridge"), expected: .init(.wired)),
        Row(label: "unknown Ethernet", link: makeLink(5, "eth0"), expected: .init(.wired)),
        Row(label: "unknown hardware", link: makeLink(6, "x", hardwareType: 776), expected: .other),
        Row(label: "no hardware type", link: makeLink(6, "x", hardwareType: HardwareType.none), expected: .other),
    ]

    @Test(arguments: rows)
    func classifies(_ row: Row) {
        #expect(Classification.classify(row.link) == row.expected)
    }

    @Test(arguments: Classification.cellularDrivers.sorted())
    func everyModemDriverIsCellular(_ driver: String) {
        let link = makeLink(3, "usb0", device: DeviceFacts(driver: driver))
        #expect(Classification.classify(link) == .cell)
    }

    @Test(arguments: Classification.tetheringDrivers.sorted())
    func tetheringIsWiredButExpensive(_ driver: String) {
        let link = makeLink(3, "usb0", device: DeviceFacts(driver: driver))
        #expect(Classification.classify(link) == InterfaceClass(kind: .wired, isExpensive: true))
    }

    /// Tunnels are "other" even when they carry Ethernet frames (gretap, vxlan) or have no hardware type.
    @Test(arguments: Classification.tunnelLinkKinds.sorted(), [HardwareType.ethernet, HardwareType.none])
    func everyTunnelIsOther(_ kind: String, _ hardwareType: UInt16) {
        let link = makeLink(7, "tun0", linkKind: kind, hardwareType: hardwareType)
        #expect(Classification.classify(link) == .other)
    }

    /// A link holds whether it is a tunnel, worked out when made; a kind or hardware type set later on a copy
    /// works it out again for that copy alone, and the copy it shared its fields with keeps its own.
    @Test(arguments: Classification.vpnLinkKinds.sorted() + ["veth", "vxlan", "bridge"])
    func aLinkKnowsWhetherItIsATunnel(_ kind: String) {
        let expected = Classification.vpnLinkKinds.contains(kind)
        let made = makeLink(7, "l0", linkKind: kind)
        #expect(made.isTunnel == expected)
        var unkind = made
        unkind.linkKind = nil
        #expect(!unkind.isTunnel)
        #expect(made.isTunnel == expected)
        var point = made
        point.hardwareType = HardwareType.ppp
        #expect(point.isTunnel)
        point.hardwareType = HardwareType.ethernet
        #expect(point.isTunnel == expected)
        var kinded = makeLink(8, "l1")
        #expect(!kinded.isTunnel)
        kinded.linkKind = kind
        #expect(kinded.isTunnel == expected)
    }
}

extension InterfaceClass {
    /// A class that is not expensive.
    init(_ kind: InterfaceKind) { self.init(kind: kind, isExpensive: false) }
    /// Cellular, which is expensive.
    static let cell = InterfaceClass(kind: .cellular, isExpensive: true)
    /// Other, not expensive.
    static let other = InterfaceClass(kind: .other, isExpensive: false)
}
