// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import NetworkHints

private let metered = Array("ANDROID_METERED".utf8)

@Test func networkdEnvironmentLeaseWithAndroidMetered() throws {
    let lease = try #require(LeaseFile.parseNetworkd(fixtureText("leases/networkd/3"), interfaceIndex: 3))
    #expect(lease.writer == .networkd)
    #expect(lease.interfaceIndex == 3)
    #expect(lease.address == "192.168.43.17")
    #expect(lease.netmask == "255.255.255.0")
    #expect(lease.router == "192.168.43.1")
    #expect(lease.vendorSpecific == metered)
    #expect(lease.isMetered)
}

@Test func networkdLeaseWithoutVendorOptionIsNotMetered() throws {
    let lease = try #require(LeaseFile.parseNetworkd(fixtureText("leases/networkd/4")))
    #expect(lease.vendorSpecific == nil)
    #expect(!lease.isMetered)
}

@Test func networkdJSONLease() throws {
    let lease = try #require(LeaseFile.parseNetworkd(fixtureText("leases/networkd-json/3"), interfaceIndex: 3))
    #expect(lease.address == "192.168.43.17")
    #expect(lease.netmask == "255.255.255.0")
    #expect(lease.router == "192.168.43.1")
    #expect(lease.isMetered)
}

/// Corrupt lines are skipped; a later undecodable VENDOR_SPECIFIC replaces the earlier one, as systemd's
/// parse_env_file keeps the last assignment and then ignores what it cannot decode.
@Test func networkdCorruptLinesAreSkipped() throws {
    let lease = try #require(LeaseFile.parseNetworkd(fixtureText("leases/networkd/6")))
    #expect(lease.address == "192.168.43.18")
    #expect(lease.vendorSpecific == nil)
    #expect(!lease.isMetered)
    #expect(LeaseFile.parseNetworkd(fixtureText("leases/networkd/7")) == nil)
    #expect(LeaseFile.parseNetworkd("") == nil)
    #expect(LeaseFile.parseNetworkd("{ not json") == nil)
}

@Test func markerIsFoundAnywhereInOption43() {
    // NetworkManager uses memmem over the whole option: a sub-option wrapper around the marker still counts.
    let wrapped: [UInt8] = [0x01, UInt8(metered.count)] + metered + [0xff]
    #expect(DHCPLease(writer: .networkd, vendorSpecific: wrapped).isMetered)
    #expect(!DHCPLease(writer: .networkd, vendorSpecific: Array("ANDROID_METERE".utf8)).isMetered)
    #expect(!DHCPLease(writer: .networkd, vendorSpecific: Array("android_metered".utf8)).isMetered)
    #expect(!DHCPLease(writer: .networkd, vendorSpecific: []).isMetered)
}

@Test func networkManagerFileNames() {
    let internalClient = LeaseFile.networkManagerInterface(
        fileName: "internal-7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d-wlan0.lease")
    #expect(internalClient?.writer == .networkManagerInternal)
    #expect(internalClient?.interface == "wlan0")
    let dashed = LeaseFile.networkManagerInterface(
        fileName: "dhclient-11111111-2222-4333-8444-555555555555-wlan-x.lease")
    #expect(dashed?.writer == .dhclient)
    #expect(dashed?.interface == "wlan-x")
    #expect(
        LeaseFile.networkManagerInterface(fileName: "internal6-7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d-wlan0.lease") == nil
    )
    #expect(LeaseFile.networkManagerInterface(fileName: "internal-short-wlan0.lease") == nil)
    #expect(LeaseFile.networkManagerInterface(fileName: "NetworkManager.state") == nil)
}

@Test func networkManagerInternalLease() throws {
    let name = "internal-7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d-wlan0.lease"
    let lease = try #require(
        LeaseFile.parseNetworkManagerInternal(fixtureText("leases/NetworkManager/" + name), interface: "wlan0"))
    #expect(lease.interfaceName == "wlan0")
    #expect(lease.isMetered)
    // What n-dhcp4 (NetworkManager 1.22 and later) writes: the address alone.
    let modern = try #require(LeaseFile.parseNetworkManagerInternal("ADDRESS=10.0.0.23\n", interface: "wlan1"))
    #expect(modern.address == "10.0.0.23")
    #expect(!modern.isMetered)
}

@Test func dhclientQuotedOptionAndLeaseOrder() {
    let leases = LeaseFile.parseDhclient(fixtureText("leases/dhcp/dhclient.wlan0.leases"), interface: "wlan0")
    #expect(leases.count == 2)
    #expect(leases.map(\.address) == ["192.168.43.17", "10.0.0.23"])
    #expect(leases[0].isMetered)
    #expect(leases[0].router == "192.168.43.1")
    #expect(leases[0].expiry == 1_704_967_200)  // 2024-01-11 10:00:00 UTC
    #expect(!leases[1].isMetered)
    #expect(leases[1].expiry == 1_705_050_000)  // 2024-01-12 09:00:00 UTC
}

@Test func dhclientHexOptionFromNetworkManagerPlugin() throws {
    let name = "dhclient-11111111-2222-4333-8444-555555555555-wlan2.lease"
    let leases = LeaseFile.parseDhclient(fixtureText("leases/NetworkManager/" + name), interface: "wlan2")
    let lease = try #require(leases.first)
    #expect(lease.vendorSpecific == metered)
    #expect(lease.isMetered)
    #expect(lease.address == "192.168.42.77")
}

/// The shared file: blocks name their interface, lease6 blocks are skipped, octal escapes decode, one-digit hex
/// groups decode, "expire never" and "expire epoch" parse, and the last block (cut short) is dropped.
@Test func dhclientSharedFile() {
    let leases = LeaseFile.parseDhclient(fixtureText("leases/dhcp/dhclient.leases"), interface: nil)
    #expect(leases.map(\.interfaceName) == ["eth1", "eth2"])
    #expect(leases[0].isMetered)
    #expect(leases[0].expiry == 1_704_970_800)
    #expect(leases[1].vendorSpecific == [0x01, 0x04, 0xde, 0xad, 0xbe, 0xef])
    #expect(leases[1].expiry == nil)
    #expect(!leases[1].isMetered)
    #expect(LeaseFile.parseDhclient(fixtureText("leases/dhcp/dhclient.leases"), interface: "eth2").count == 1)
}

@Test func dhclientCorruptValuesAreIgnored() throws {
    let leases = LeaseFile.parseDhclient(fixtureText("leases/dhclient/dhclient--eth3.lease"), interface: "eth3")
    let lease = try #require(leases.first)
    #expect(lease.address == "192.168.7.7")
    #expect(lease.vendorSpecific == nil)
    #expect(lease.expiry == nil)
    #expect(
        LeaseFile.parseDhclient("lease { option vendor-encapsulated-options \"\\x41\\101\\\"\"; }", interface: nil)
            .first?.vendorSpecific == [0x41, 0x41, 0x22])
    #expect(LeaseFile.parseDhclient("}}} lease lease { { ;;", interface: nil).isEmpty)
}

@Test func civilDates() {
    #expect(LeaseFile.daysSinceEpoch(year: 1970, month: 1, day: 1) == 0)
    #expect(LeaseFile.daysSinceEpoch(year: 2000, month: 3, day: 1) == 11_017)
    #expect(LeaseFile.daysSinceEpoch(year: 2024, month: 2, day: 29) == 19_782)
}
