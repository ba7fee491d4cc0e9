import FuzzSupport
import Testing

@testable import NetworkHints

// systemd-networkd's lease files in both formats, and NetworkManager's internal client's (the same KEY=VALUE form).

@Test func networkdEnvironmentLeaseParserSurvivesMutatedLeases() {
    let seeds = [
        "leases/networkd/3", "leases/networkd/4", "leases/networkd/5", "leases/networkd/6", "leases/networkd/7",
    ]
    .map(fixtureBytes)
    let words = ["ADDRESS=", "NETMASK=", "ROUTER=", "VENDOR_SPECIFIC=", "=", "\"", "'", "#", ";", "414e44", "255."]
    let mutator = Mutator(seeds: seeds, dictionary: words.map { Array($0.utf8) }, seed: 0x0E7D_1EA5)
    let report = Fuzz.run("networkd-lease", count: 100_000, mutator: mutator) { input in
        LeaseFile.parseNetworkd(String(decoding: input, as: UTF8.self), interfaceIndex: 3) != nil
    }
    #expect(report.accepted > 1000 && report.accepted < report.count)
    #expect(report.peakMemoryGrowthKiB < Fuzz.memoryBoundKiB)
}

@Test func networkdJSONLeaseParserSurvivesMutatedLeases() {
    let seeds = [fixtureBytes("leases/networkd-json/3")]
    let words = [
        "{", "}", "[", "]", ",", ":", "\"Address\"", "\"Vendor_Specific\"", "\"Router\"", "[192,168,0,1]", "null",
        "[[[[[[[[", "1e400", "\"\\ud800\"",
    ]
    // Foundation's JSONDecoder is the slowest parser here; its inputs are capped lower to keep the run short.
    let mutator = Mutator(
        seeds: seeds, dictionary: words.map { Array($0.utf8) }, maximumLength: 1024, seed: 0x0E7D_150E)
    let report = Fuzz.run("networkd-json-lease", count: 100_000, mutator: mutator) { input in
        LeaseFile.parseNetworkd(String(decoding: input, as: UTF8.self)) != nil
    }
    #expect(report.accepted > 100 && report.accepted < report.count)
    #expect(report.peakMemoryGrowthKiB < Fuzz.memoryBoundKiB)
}

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
