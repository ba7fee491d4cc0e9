// SPDX-License-Identifier: Apache-2.0
import FuzzSupport
import Testing

@testable import PathModel

// The configuration file (/etc/pathmond.conf), and the patterns and network keys it holds.

@Test func configurationParserSurvivesMutatedFiles() {
    let seeds = [
        """
        # pathmond configuration
        [interface wwan*]
        type = cellular
        expensive = yes

        [interface eth[01]]
        network = wired:02:00:00:00:00:01
        ; a comment
        [policy]
        admin-group = netdev
        """,
        "[interface usb?]\ntype = wired\nexpensive = true\n[interface wlan0]\nnetwork = wifi:Home%20Net\n",
        "\u{FEFF}[future]\nkey = value\n[interface tun*] # vpn\ntype = other\n",
    ].map { Array($0.utf8) }
    let words = [
        "[", "]", "[interface ", "[policy]", "=", "#", ";", "*", "?", "[!", "[^", "-", "type = ", "expensive = ",
        "network = ", "admin-group = ", "wifi:", "wired:", "cellular:", "%", "%zz", "\n", "\r\n", "\u{2028}",
    ]
    let mutator = Mutator(seeds: seeds, dictionary: words.map { Array($0.utf8) }, seed: 0xC0_4F16)
    let names = ["wwan0", "eth1", "wlan0", "usb0", "tun0", "[x]", "eth[", "a*b?c"]
    let report = Fuzz.run("configuration", count: 100_000, mutator: mutator) { input in
        guard let configuration = try? Configuration.parse(String(decoding: input, as: UTF8.self)) else {
            return false
        }
        // What the parser accepts, the classifier must be able to use: match every pattern against a few names.
        for override in configuration.overrides {
            for name in names { _ = Glob(override.pattern).matches(name) }
        }
        return true
    }
    #expect(report.accepted > 1000 && report.accepted < report.count)
    #expect(report.peakMemoryGrowthKiB < Fuzz.memoryBoundKiB)
}
