// SPDX-License-Identifier: Apache-2.0
import FuzzSupport
import Testing

@testable import NetworkHints

// The sysfs attributes and directory names a modem's hardware identity is read from.

@Test func sysfsModemAttributesSurviveMutatedValues() {
    let root = "sysfs/devices/pci0000:00/"
    let files = [
        "0000:00:14.0/usb1/1-1.2/idProduct", "0000:00:14.0/usb1/1-1.2/idVendor", "0000:00:14.0/usb2/2-3/serial",
        "0000:00:1c.0/0000:03:00.0/vendor", "0000:00:1c.0/0000:03:00.0/device",
        "0000:00:14.0/usb1/1-1.2/1-1.2:1.6/uevent",
    ]
    let seeds =
        files.map { fixtureBytes(root + $0) } + ["0000:03:00.0", "0000:00:1c.0", "2-3:1.4"].map { Array($0.utf8) }
    let words = ["0x", ":", ".", "0000:", "\n", " "].map { Array($0.utf8) }
    let mutator = Mutator(seeds: seeds, dictionary: words, maximumLength: 1024, seed: 0x5F5F_0DE4)
    let report = Fuzz.run("sysfs-modem-attributes", count: 100_000, mutator: mutator) { input in
        let text = String(decoding: input, as: UTF8.self)
        let value = SysfsModemIdentitySource.attributeValue(text)
        let isPCI = SysfsModemIdentitySource.isPCIAddress(text)
        return value != nil || isPCI
    }
    #expect(report.accepted > 1000 && report.accepted < report.count)
    #expect(report.peakMemoryGrowthKiB < Fuzz.memoryBoundKiB)
}
