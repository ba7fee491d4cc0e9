// SPDX-License-Identifier: Apache-2.0
/// A modem's stable hardware identity from sysfs, for when ModemManager is not there to read the SIM: the USB
/// device's vendor, product and serial number, or, without a serial, its port path; for a PCIe modem (mhi_net),
/// the PCI vendor, device and slot address. The identity names the modem, not the SIM: a SIM moved to another
/// modem is a new network to us, which is the price of not talking to the modem.
public struct SysfsModemIdentitySource: CellularIdentitySource {
    /// The sysfs mount point ("/sys"; a fixture tree in tests).
    public let root: String

    /// A source over the sysfs tree at `root`.
    public init(root: String = "/sys") {
        self.root = root
    }

    /// The hardware identity of each of `interfaces` that sits on a USB or PCI device; never throws, since
    /// sysfs is always there and an interface without a device simply has no identity.
    public func subscribers(forInterfaces interfaces: [String]) throws(CellularIdentityUnavailable)
        -> [String: CellularSubscriber]
    {
        var result: [String: CellularSubscriber] = [:]
        for interface in interfaces {
            if let identity = Self.hardwareIdentity(interface: interface, sysfsRoot: root) {
                result[interface] = CellularSubscriber(hardwareIdentity: identity)
            }
        }
        return result
    }

    /// "usb:VID:PID:SERIAL", "usb:VID:PID@PORTPATH" or "pci:VENDOR:DEVICE@SLOT" for the device behind
    /// `interface`: the nearest USB device (a directory with idVendor) or PCI function above the interface's
    /// `device` link. Nil for a virtual interface, a name that could leave the tree, or a device of another bus.
    public static func hardwareIdentity(interface: String, sysfsRoot: String) -> String? {
        guard !interface.isEmpty, interface != ".", interface != "..", !interface.contains("/"),
            let rootPath = HintFiles.canonicalPath(sysfsRoot),
            var directory = HintFiles.canonicalPath(sysfsRoot + "/class/net/" + interface + "/device")
        else { return nil }
        while directory.hasPrefix(rootPath + "/devices/") {
            if let vendor = attribute(directory, "idVendor"), let product = attribute(directory, "idProduct") {
                if let serial = attribute(directory, "serial") { return "usb:\(vendor):\(product):\(serial)" }
                // Without a serial, the port path ("2-3.1") tells two identical sticks apart while they stay put.
                return "usb:\(vendor):\(product)@\(lastComponent(directory))"
            }
            if isPCIAddress(lastComponent(directory)), let vendor = attribute(directory, "vendor"),
                let device = attribute(directory, "device")
            {
                return "pci:\(stripHexPrefix(vendor)):\(stripHexPrefix(device))@\(lastComponent(directory))"
            }
            guard let slash = directory.lastIndex(of: "/") else { break }
            directory = String(directory[..<slash])
        }
        return nil
    }

    /// A one-line attribute without its newline; nil if missing or empty.
    private static func attribute(_ directory: String, _ name: String) -> String? {
        HintFiles.readText(directory + "/" + name, maximumSize: 4096).flatMap(attributeValue)
    }

    /// The first line of an attribute's text without whitespace; nil if empty.
    static func attributeValue(_ text: String) -> String? {
        let value = text.split(whereSeparator: \.isNewline).first.map { String($0).filter { !$0.isWhitespace } }
        return value?.isEmpty == false ? value : nil
    }

    private static func lastComponent(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// "0000:03:00.0": domain, bus, device and function, as PCI devices are named in sysfs.
    static func isPCIAddress(_ name: String) -> Bool {
        let parts = name.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2 else { return false }
        let slot = parts[2].split(separator: ".", omittingEmptySubsequences: false)
        guard slot.count == 2, slot[0].count == 2, slot[1].count == 1 else { return false }
        return (parts[0] + parts[1] + slot[0] + slot[1]).allSatisfy(\.isHexDigit)
    }

    private static func stripHexPrefix(_ text: String) -> String {
        text.hasPrefix("0x") ? String(text.dropFirst(2)) : text
    }
}
