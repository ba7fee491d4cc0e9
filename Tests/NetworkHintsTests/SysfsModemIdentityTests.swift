// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import NetworkHints

private let sysfs = fixtureRoot + "/sysfs"

/// The fixture mirrors sysfs: class/net/IFACE/device links to the USB interface (2-3:1.4) whose parent is the USB
/// device with idVendor, idProduct and serial; an mhi_net modem hangs below its PCI function.
@Test(arguments: [
    ("wwan0", "usb:2c7c:0125:a1b2c3d4"),  // a Quectel stick with a serial number
    ("wwan1", "usb:1199:9071@1-1.2"),  // a Sierra module without one: its port path
    ("mhi_hwip0", "pci:17cb:0306@0000:03:00.0"),  // a PCIe modem
])
func hardwareIdentities(interface: String, identity: String) {
    #expect(SysfsModemIdentitySource.hardwareIdentity(interface: interface, sysfsRoot: sysfs) == identity)
}

@Test func interfacesWithoutADeviceHaveNoIdentity() throws {
    for name in ["veth0", "missing", "..", "../net", ""] {
        #expect(SysfsModemIdentitySource.hardwareIdentity(interface: name, sysfsRoot: sysfs) == nil, "\(name)")
    }
    let found = try SysfsModemIdentitySource(root: sysfs).subscribers(forInterfaces: ["wwan0", "veth0"])
    #expect(found == ["wwan0": CellularSubscriber(hardwareIdentity: "usb:2c7c:0125:a1b2c3d4")])
}

@Test func pciAddresses() {
    #expect(SysfsModemIdentitySource.isPCIAddress("0000:03:00.0"))
    #expect(!SysfsModemIdentitySource.isPCIAddress("usb1"))
    #expect(!SysfsModemIdentitySource.isPCIAddress("0000:03:00"))
}

private struct FixedSource: CellularIdentitySource {
    var answer: [String: CellularSubscriber]?
    func subscribers(forInterfaces interfaces: [String]) throws(CellularIdentityUnavailable)
        -> [String: CellularSubscriber]
    {
        guard let answer else { throw .serviceNotRunning }
        return answer
    }
}

@Test func fallbackFillsWhatTheFirstSourceMisses() throws {
    let modemManager = FixedSource(answer: ["wwan0": CellularSubscriber(iccid: "8901", hardwareIdentity: nil)])
    let combined = FallbackCellularIdentitySource([modemManager, SysfsModemIdentitySource(root: sysfs)])
    let found = try combined.subscribers(forInterfaces: ["wwan0", "wwan1"])
    #expect(found["wwan0"] == CellularSubscriber(iccid: "8901", hardwareIdentity: "usb:2c7c:0125:a1b2c3d4"))
    #expect(found["wwan1"] == CellularSubscriber(hardwareIdentity: "usb:1199:9071@1-1.2"))
    let absent = FallbackCellularIdentitySource([FixedSource(answer: nil)])
    #expect(throws: CellularIdentityUnavailable.serviceNotRunning) { try absent.subscribers(forInterfaces: ["x"]) }
}
