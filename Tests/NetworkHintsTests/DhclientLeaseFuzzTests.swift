// SPDX-License-Identifier: Apache-2.0
import FuzzSupport
import Testing

@testable import NetworkHints

// ISC dhclient lease files, as dhclient and NetworkManager's dhclient plugin leave them.

@Test func dhclientLeaseParserSurvivesMutatedLeases() {
    let seeds = [
        "leases/dhcp/dhclient.wlan0.leases", "leases/dhcp/dhclient.leases", "leases/dhclient/dhclient--eth3.lease",
        "leases/dhclient/dhclient6--eth3.lease",
        "leases/NetworkManager/dhclient-11111111-2222-4333-8444-555555555555-wlan2.lease",
    ].map(fixtureBytes)
    let words = [
        "lease {", "}", ";", "expire 4 ", "expire epoch ", "expire never;", "2024/01/11 10:27:30", "/", ":",
        "option vendor-encapsulated-options ", "option routers ", "fixed-address ", "interface \"", "\\", "\\x",
        "\\377", "41:4e:44", "{ { {", "lease6 {", "#",
    ]
    let mutator = Mutator(seeds: seeds, dictionary: words.map { Array($0.utf8) }, seed: 0xD4C1_1E47)
    let report = Fuzz.run("dhclient-lease", count: 100_000, mutator: mutator) { input in
        !LeaseFile.parseDhclient(String(decoding: input, as: UTF8.self), interface: "wlan0").isEmpty
    }
    #expect(report.accepted > 1000 && report.accepted < report.count)
    #expect(report.peakMemoryGrowthKiB < Fuzz.memoryBoundKiB)
}

/// The lease that put pathmond in a crash loop: a year whose days overflow Int64 seconds.
@Test func dhclientExpiryPastAnyRepresentableTimeIsUnreadable() {
    let text = """
        lease {
          interface "wlan0";
          fixed-address 192.168.43.17;
          expire 4 1000000000000/01/11 10:27:30;
        }
        """
    let leases = LeaseFile.parseDhclient(text, interface: "wlan0")
    #expect(leases.count == 1)
    #expect(leases.first?.address == "192.168.43.17")
    #expect(leases.first?.expiry == nil)
}

@Test(arguments: [
    "expire 4 9223372036854775807/12/31 23:59:59", "expire 4 -9223372036854775808/01/01 00:00:00",
    "expire 4 292277026596/12/04 15:30:07", "expire 4 -292277022657/01/27 08:29:52",
])
func dhclientExtremeYearsAreUnreadableNotATrap(_ statement: String) {
    let leases = LeaseFile.parseDhclient("lease { \(statement); }", interface: nil)
    #expect(leases.count == 1)
    #expect(leases.first?.expiry == nil)
}

@Test func dhclientOrdinaryExpiryStillReads() {
    let leases = LeaseFile.parseDhclient("lease { expire 4 2024/01/11 10:27:30; }", interface: nil)
    #expect(leases.first?.expiry == 1_704_968_850)
}
