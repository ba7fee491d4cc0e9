// SPDX-License-Identifier: Apache-2.0
import FuzzSupport
import Testing

@testable import Netlink

// nl80211 messages from the kernel (or whatever else can write to a generic netlink socket's buffer).

@Test func nl80211DecoderSurvivesMutatedMessages() {
    let seeds = [
        NL80211Fixtures.interfaceReply, NL80211Fixtures.connectEvent, NL80211Fixtures.disconnectEvent,
        NL80211Fixtures.interfaceReply(ssid: Array(repeating: 0x41, count: 32)),
        NL80211Fixtures.interfaceReply(ssid: nil, type: 3),
    ]
    // Attribute headers: lengths 0, 3, 4, 0xffff, and the IFINDEX, IFTYPE and SSID types with odd sizes.
    let words: [[UInt8]] = [
        [0, 0, 3, 0], [3, 0, 3, 0], [4, 0, 52, 0], [0xff, 0xff, 52, 0], [5, 0, 3, 0, 1], [0x25, 0, 52, 0],
        [8, 0, 5, 0, 0xff, 0xff, 0xff, 0xff], [0xff, 0xff, 0xff, 0xff], [0x14, 0, 0, 0],
    ]
    let mutator = Mutator(seeds: seeds, dictionary: words, maximumLength: 1024, seed: 0x8021_1000)
    let report = Fuzz.run("nl80211-message", count: 100_000, mutator: mutator) { input in
        // As mutated, and with nlmsg_len made to match so that the attribute walk is reached every time.
        var fitted = input
        if fitted.count >= 4 {
            let length = UInt32(fitted.count)
            for byte in 0..<4 { fitted[byte] = UInt8(truncatingIfNeeded: length >> (8 * UInt32(byte))) }
        }
        let raw = try? NL80211Message.decode(input)
        let fit = try? NL80211Message.decode(fitted)
        return raw != nil || fit != nil
    }
    #expect(report.accepted > 1000 && report.accepted < report.count)
    #expect(report.peakMemoryGrowthKiB < Fuzz.memoryBoundKiB)
}
