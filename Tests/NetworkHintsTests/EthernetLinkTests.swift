// SPDX-License-Identifier: Apache-2.0
import FuzzSupport
import PathModel
import Testing

@testable import NetworkHints

/// sysfs speed and duplex, as the kernel prints them (net/core/net-sysfs.c: speed_show, duplex_show).
@Suite struct EthernetLinkTests {
    @Test func theFiguresAsSysfsPrintsThem() {
        #expect(
            EthernetLink.quality(speed: "1000\n", duplex: "full\n")
                == LinkQuality(source: .ethernet, speedMbps: 1000, isFullDuplex: true))
        #expect(EthernetLink.quality(speed: "100\n", duplex: "half\n")?.isFullDuplex == false)
        #expect(EthernetLink.quality(speed: "10000\n", duplex: "unknown\n")?.isFullDuplex == nil)
        // Without carrier the read fails (nil); a driver that does not know prints -1.
        #expect(EthernetLink.quality(speed: nil, duplex: nil) == nil)
        #expect(EthernetLink.quality(speed: "-1\n", duplex: "unknown\n") == nil)
        #expect(EthernetLink.quality(speed: "0\n", duplex: "full\n") == nil)
        #expect(EthernetLink.quality(speed: "99999999999\n", duplex: "full\n") == nil)
    }

    @Test func aNameCannotLeaveTheRoot() {
        for name in ["", ".", "..", "../etc", "a/b"] {
            #expect(EthernetLink.quality(sysfsRoot: "/sys/class/net", name: name) == nil)
        }
    }

    @Test func mutatedValuesNeverTrap() {
        let seeds = ["1000\n", "100\n", "-1\n", "10000\n", "full\n", "half\n"].map { Array($0.utf8) }
        let words = ["\n", "-", "0", "9", "+", " ", "4294967295", "\u{0}"].map { Array($0.utf8) }
        let mutator = Mutator(seeds: seeds, dictionary: words, maximumLength: 64, seed: 0xE7E7_0001)
        let report = Fuzz.run("sysfs-speed", count: 100_000, mutator: mutator) { input in
            let text = String(decoding: input, as: UTF8.self)
            guard let quality = EthernetLink.quality(speed: text, duplex: text) else { return false }
            return (quality.speedMbps ?? 0) > 0
        }
        #expect(report.accepted > 1000 && report.accepted < report.count)
    }
}
