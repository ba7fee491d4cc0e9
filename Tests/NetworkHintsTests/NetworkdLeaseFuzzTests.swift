// SPDX-License-Identifier: Apache-2.0
import FuzzSupport
import Testing

@testable import NetworkHints

// systemd-networkd's lease files in both formats: KEY=VALUE up to v257, JSON since.

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
