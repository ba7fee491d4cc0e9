// SPDX-License-Identifier: Apache-2.0
import FuzzSupport
import Glibc
import Testing

@testable import Netlink

// The uevent files and driver links sysfs gives for a network interface.

@Test func sysfsDeviceProbeParsersSurviveMutatedFiles() {
    let names = [
        "wlp2s0", "wlx00c0ca123456", "mhi_hwip0", "enx8a1f2b3c4d5e", "enp3s0", "usb0", "wg0", "wwan0", "br0", "veth0",
        "lo", "enp0s31f6", "wwp0s20f0u6", "tun0", "rmnet_data0",
    ]
    let seeds =
        names.map { sysfsFixture("\($0)/uevent") }
        + ["../../../../bus/pci/drivers/iwlwifi", "../../../../bus/usb/drivers/qmi_wwan", "/", "..", "a/./.."]
        .map { Array($0.utf8) }
    let words = ["DEVTYPE=", "INTERFACE=", "\n", "=", "/", "..", "."].map { Array($0.utf8) }
    let mutator = Mutator(seeds: seeds, dictionary: words, maximumLength: 2048, seed: 0x5F5F_DE71)
    let report = Fuzz.run("sysfs-device", count: 100_000, mutator: mutator) { input in
        let text = String(decoding: input, as: UTF8.self)
        let type = SysfsDeviceProbe.deviceType(inUevent: text)
        let driver = SysfsDeviceProbe.lastPathComponent(text)
        let safe = SysfsDeviceProbe.isSafeName(text)
        return type != nil || (driver != nil && safe)
    }
    #expect(report.accepted > 1000 && report.accepted < report.count)
    #expect(report.peakMemoryGrowthKiB < Fuzz.memoryBoundKiB)
}

private func sysfsFixture(_ relativePath: String) -> [UInt8] {
    let file = #filePath
    let path = String(file[..<(file.lastIndex(of: "/") ?? file.startIndex)]) + "/Fixtures/sysfs/" + relativePath
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    precondition(descriptor >= 0, "missing fixture \(relativePath)")
    defer { close(descriptor) }
    var contents: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return contents }
        contents += buffer[..<count]
    }
}
