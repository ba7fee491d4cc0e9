// SPDX-License-Identifier: Apache-2.0
import FuzzSupport
import Testing

@testable import NetworkHints

// NetworkManager's lease files, read both by content and by name (the name says the interface and the client).

@Test func networkManagerLeaseParserSurvivesMutatedLeasesAndNames() {
    let directory = "leases/NetworkManager/"
    let names = [
        "internal-7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d-wlan0.lease",
        "internal-0f9e8d7c-6b5a-4948-8372-615049382716-wlan1.lease",
        "internal6-7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d-wlan0.lease",
        "dhclient-11111111-2222-4333-8444-555555555555-wlan2.lease", "dhclient.wlan0.leases", "dhclient--eth3.lease",
    ]
    let seeds = names.prefix(3).map { fixtureBytes(directory + $0) } + names.map { Array($0.utf8) }
    let words = ["ADDRESS=", "internal-", "dhclient-", "dhclient6", ".lease", ".leases", "-", "/", "dhclient--"]
    let mutator = Mutator(seeds: seeds, dictionary: words.map { Array($0.utf8) }, seed: 0x4E4D_1EA5)
    let report = Fuzz.run("networkmanager-lease", count: 100_000, mutator: mutator) { input in
        // Each input is read both as a file's contents and as a file's name: both come from the disk.
        let text = String(decoding: input, as: UTF8.self)
        let lease = LeaseFile.parseNetworkManagerInternal(text, interface: "wlan0")
        let named = LeaseFile.networkManagerInterface(fileName: text)
        let dhclientName = MeteredLeaseDetector.dhclientInterface(fileName: text)
        return lease != nil || named != nil || dhclientName != nil
    }
    #expect(report.accepted > 1000 && report.accepted < report.count)
    #expect(report.peakMemoryGrowthKiB < Fuzz.memoryBoundKiB)
}
