// SPDX-License-Identifier: Apache-2.0
import Glibc
import PathModel
import Testing

@testable import Netlink

/// The fixture tree copies the sysfs entries of real devices (uevent, device/driver, phy80211, wireless). Driver
/// links keep their real relative targets, which do not exist here: the probe needs only the last component.
private let fixtureRoot: String = {
    let file = #filePath
    let directory = file[..<(file.lastIndex(of: "/") ?? file.startIndex)]
    return directory + "/Fixtures/sysfs"
}()

/// One real device: what sysfs holds (checked against the probe) and what rtnetlink reports for it.
struct RealDevice: Sendable, CustomTestStringConvertible {
    var name: String
    var facts: DeviceFacts
    var linkKind: String?
    var hardwareType: UInt16
    var flags: LinkFlags = [.up, .running, .lowerUp]
    var kind: InterfaceKind
    var isExpensive: Bool

    var testDescription: String { name }
}

private let realDevices: [RealDevice] = [
    RealDevice(
        name: "lo", facts: .unknown, hardwareType: HardwareType.loopback, flags: [.up, .running, .loopback],
        kind: .loopback, isExpensive: false),
    RealDevice(
        name: "enp0s31f6", facts: DeviceFacts(driver: "e1000e"), hardwareType: HardwareType.ethernet, kind: .wired,
        isExpensive: false),
    RealDevice(
        name: "enp3s0", facts: DeviceFacts(driver: "r8169"), hardwareType: HardwareType.ethernet, kind: .wired,
        isExpensive: false),
    RealDevice(
        name: "wlp2s0", facts: DeviceFacts(deviceType: "wlan", driver: "iwlwifi", hasWirelessExtensions: true),
        hardwareType: HardwareType.ethernet, kind: .wifi, isExpensive: false),
    RealDevice(
        name: "wlx00c0ca123456",
        facts: DeviceFacts(deviceType: "wlan", driver: "mt7601u", hasWirelessExtensions: true),
        hardwareType: HardwareType.ethernet, kind: .wifi, isExpensive: false),
    // qmi_wwan in its default 802.3 framing: Ethernet-typed, told apart only by DEVTYPE and driver.
    RealDevice(
        name: "wwan0", facts: DeviceFacts(deviceType: "wwan", driver: "qmi_wwan"),
        hardwareType: HardwareType.ethernet, kind: .cellular, isExpensive: true),
    RealDevice(
        name: "wwp0s20f0u6", facts: DeviceFacts(deviceType: "wwan", driver: "cdc_mbim"),
        hardwareType: HardwareType.ethernet, kind: .cellular, isExpensive: true),
    RealDevice(
        name: "mhi_hwip0", facts: DeviceFacts(driver: "mhi_net"), hardwareType: HardwareType.rawIP,
        flags: [.up, .running, .lowerUp, .pointToPoint], kind: .cellular, isExpensive: true),
    // A virtual rmnet netdevice has no device of its own: only its link kind and raw-IP type say cellular.
    RealDevice(
        name: "rmnet_data0", facts: .unknown, linkKind: "rmnet", hardwareType: HardwareType.rawIP, kind: .cellular,
        isExpensive: true),
    RealDevice(
        name: "enx8a1f2b3c4d5e", facts: DeviceFacts(driver: "ipheth"), hardwareType: HardwareType.ethernet,
        kind: .wired, isExpensive: true),
    RealDevice(
        name: "usb0", facts: DeviceFacts(driver: "rndis_host"), hardwareType: HardwareType.ethernet, kind: .wired,
        isExpensive: true),
    RealDevice(
        name: "veth0", facts: .unknown, linkKind: "veth", hardwareType: HardwareType.ethernet, kind: .wired,
        isExpensive: false),
    RealDevice(
        name: "br0", facts: DeviceFacts(deviceType: "bridge"), linkKind: "bridge", hardwareType: HardwareType.ethernet,
        kind: .wired, isExpensive: false),
    RealDevice(
        name: "tun0", facts: DeviceFacts(deviceType: "tun"), linkKind: "tun", hardwareType: HardwareType.none,
        flags: [.up, .running, .pointToPoint], kind: .other, isExpensive: false),
    RealDevice(
        name: "wg0", facts: DeviceFacts(deviceType: "wireguard"), linkKind: "wireguard",
        hardwareType: HardwareType.none, flags: [.up, .running, .pointToPoint], kind: .other, isExpensive: false),
]

@Suite struct SysfsDeviceProbeTests {
    let probe = SysfsDeviceProbe(root: fixtureRoot)

    @Test(arguments: realDevices)
    func readsTheFactsOfARealDevice(_ device: RealDevice) {
        #expect(probe.facts(forInterfaceNamed: device.name) == device.facts)
    }

    @Test(arguments: realDevices)
    func classifiesARealDevice(_ device: RealDevice) {
        let link = Link(
            index: 1, name: device.name, flags: device.flags, operState: .up, linkKind: device.linkKind,
            hardwareType: device.hardwareType, device: probe.facts(forInterfaceNamed: device.name))
        let result = Classification.classify(link)
        #expect(result == InterfaceClass(kind: device.kind, isExpensive: device.isExpensive))
    }

    @Test func everyFixtureDirectoryIsInTheTable() {
        let listed = Set(realDevices.map(\.name))
        let present = Set(fixtureNames())
        #expect(present == listed)
    }

    @Test func aMissingInterfaceIsUnknown() {
        #expect(probe.facts(forInterfaceNamed: "eth9") == .unknown)
        #expect(SysfsDeviceProbe(root: "/nonexistent/sys/class/net").facts(forInterfaceNamed: "wlp2s0") == .unknown)
    }

    /// Each of these would reach a real fixture (or leave the tree) if the probe joined it onto the root.
    @Test(arguments: ["", ".", "..", "../sysfs/wlp2s0", "wlp2s0/../wwan0", "/wlp2s0", "wlp2s0/", "wlp2s0\0"])
    func refusesNamesThatLeaveTheRoot(_ name: String) {
        #expect(SysfsDeviceProbe.isSafeName(name) == false)
        #expect(probe.facts(forInterfaceNamed: name) == .unknown)
    }

    @Test(arguments: ["wlp2s0", "a..b", "eth0.100", "wwan-stick"])
    func acceptsOrdinaryNames(_ name: String) {
        #expect(SysfsDeviceProbe.isSafeName(name))
    }

    @Test(
        arguments: [
            ("DEVTYPE=wlan\nINTERFACE=wlp2s0\nIFINDEX=4\n", "wlan"),
            ("INTERFACE=wwan0\nIFINDEX=6\nDEVTYPE=wwan", "wwan"),
            ("INTERFACE=eth0\nIFINDEX=2\n", nil),
            ("DEVTYPE=\nINTERFACE=x\n", nil),
            ("", nil),
            ("XDEVTYPE=wlan\n", nil),
        ] as [(String, String?)])
    func parsesDevtype(_ uevent: String, _ expected: String?) {
        #expect(SysfsDeviceProbe.deviceType(inUevent: uevent) == expected)
    }

    @Test(
        arguments: [
            ("../../../../bus/pci/drivers/iwlwifi", "iwlwifi"),
            ("/sys/bus/usb/drivers/qmi_wwan/", "qmi_wwan"),
            ("rndis_host", "rndis_host"),
            ("..", nil),
            ("/", nil),
            ("", nil),
        ] as [(String, String?)])
    func takesTheDriverFromTheLastComponent(_ target: String, _ expected: String?) {
        #expect(SysfsDeviceProbe.lastPathComponent(target) == expected)
    }

    @Test func aDanglingPhyLinkStillCountsAsWireless() {
        // phy80211 points outside the fixture tree; following it would miss the radio.
        #expect(SysfsFile.entryExists(fixtureRoot + "/wlx00c0ca123456/phy80211"))
        #expect(probe.facts(forInterfaceNamed: "wlx00c0ca123456").hasWirelessExtensions)
    }

    private func fixtureNames() -> [String] {
        guard let directory = opendir(fixtureRoot) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
