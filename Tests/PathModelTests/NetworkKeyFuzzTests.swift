// SPDX-License-Identifier: Apache-2.0
import FuzzSupport
import Testing

@testable import PathModel

// Network keys, as clients send them (SetConstrained, ForgetNetwork) and the configuration names them.

@Test func networkKeyParserSurvivesMutatedKeys() {
    let seeds = [
        "wifi:Home%20Net", "wifi:", "wifi:%00%FF%25", "wired:02:00:00:00:00:01", "cellular:sim-0123456789abcdef",
        "wired:00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff:00:11:22:33",
    ].map { Array($0.utf8) }
    let words = ["%", "%2", "%20", ":", "wifi:", "wired:", "cellular:", "%E2%82%AC", "ff:"].map { Array($0.utf8) }
    let mutator = Mutator(seeds: seeds, dictionary: words, maximumLength: 512, seed: 0x4E_7C1E)
    let report = Fuzz.run("network-key", count: 100_000, mutator: mutator) { input in
        guard let key = NetworkKey(String(decoding: input, as: UTF8.self)) else { return false }
        // A key that parses prints back as itself, and a Wi-Fi key's SSID fits 802.11's 32 bytes.
        #expect(NetworkKey(key.description) == key)
        #expect(key.description.utf8.count <= NetworkKey.maximumLength)
        if let ssid = key.ssid { #expect(ssid.count <= 32) }
        return true
    }
    #expect(report.accepted > 1000 && report.accepted < report.count)
    #expect(report.peakMemoryGrowthKiB < Fuzz.memoryBoundKiB)
}
