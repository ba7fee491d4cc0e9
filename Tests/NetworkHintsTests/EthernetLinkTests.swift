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

    /// The files are found under the root as sysfs lays them out (Fixtures/ethernet: eth0 at 1000 half duplex,
    /// enp0s31f6 at 2500 without a duplex file, nothing for eth1).
    @Test func theFilesAreReadFromTheTree() {
        let root = fixtureRoot + "/ethernet"
        #expect(
            EthernetLink.quality(sysfsRoot: root, name: "eth0")
                == LinkQuality(source: .ethernet, speedMbps: 1000, isFullDuplex: false))
        #expect(
            EthernetLink.quality(sysfsRoot: root, name: "enp0s31f6")
                == LinkQuality(source: .ethernet, speedMbps: 2500, isFullDuplex: nil))
        #expect(EthernetLink.quality(sysfsRoot: root, name: "eth1") == nil)
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

    /// The figures are read from bytes by hand: on the same mutated texts they must be what the earlier reading
    /// gave (a String without its newline, Int64's parser, the duplex's words compared as strings).
    @Test func theBytesReadAsTheStringsDid() {
        func oracle(_ speed: String, _ duplex: String) -> LinkQuality? {
            func trimmed(_ text: String) -> String { text.hasSuffix("\n") ? String(text.dropLast()) : text }
            guard let megabits = Int64(trimmed(speed)), megabits > 0, megabits <= UInt32.max else { return nil }
            let full: Bool? = trimmed(duplex) == "full" ? true : trimmed(duplex) == "half" ? false : nil
            return LinkQuality(source: .ethernet, speedMbps: UInt32(megabits), isFullDuplex: full)
        }
        let seeds = ["1000\n", "+100\n", "-1\n", "9223372036854775807", "full\n", "half"].map { Array($0.utf8) }
        let words = ["\n", "-", "+", "0", "9", " ", "full", "half", "4294967296", "\u{0}", "é"].map { Array($0.utf8) }
        var random = FuzzRandom(seed: 0xE7E7_0002)
        var mutator = Mutator(seeds: seeds, dictionary: words, maximumLength: 24, seed: 0xE7E7_0003)
        var agreed = 0
        for _ in 0..<50_000 {
            let speed = String(decoding: mutator.next(), as: UTF8.self)
            let duplex = ["full\n", "half\n", "full", "unknown\n", "full\n\n", speed].randomElement(using: &random)!
            let quality = EthernetLink.quality(speed: speed, duplex: duplex)
            #expect(quality == oracle(speed, duplex), "\(Array(speed.utf8)) \(Array(duplex.utf8))")
            if quality != nil { agreed += 1 }
        }
        #expect(agreed > 1000)
    }
}
