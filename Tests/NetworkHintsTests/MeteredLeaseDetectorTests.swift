// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import NetworkHints

private let leases = fixtureRoot + "/leases"
private let now: Int64 = 1_704_960_000  // 2024-01-11 08:00:00 UTC: every fixture lease is still valid

@Test func networkdLeasesByIndex() {
    let detector = MeteredLeaseDetector(
        networkdLeaseDirectory: leases + "/networkd", networkManagerDirectory: "/nonexistent",
        dhclientDirectories: [])
    let links: [(index: Int32, name: String)] = [
        (3, "wlan0"), (4, "wlan1"), (5, "wlan2"), (6, "x"), (7, "y"), (8, "z"),
    ]
    // 3: ANDROID_METERED; 5: the Apple Personal Hotspot numbering; 4, 6, 7 not; 8 has no file.
    #expect(detector.meteredInterfaces(links: links, now: now) == [3, 5])
    var withoutApple = detector
    withoutApple.detectsApplePersonalHotspot = false
    #expect(withoutApple.meteredInterfaces(links: links, now: now) == [3])
}

@Test func networkManagerDirectory() {
    let detector = MeteredLeaseDetector(
        networkdLeaseDirectory: "/nonexistent", networkManagerDirectory: leases + "/NetworkManager",
        dhclientDirectories: [])
    let links: [(index: Int32, name: String)] = [(10, "wlan0"), (11, "wlan1"), (12, "wlan2")]
    #expect(detector.meteredInterfaces(links: links, now: now) == [10, 12])
    // The wlan2 dhclient lease ran out at 10:52:30 on 2024-01-11.
    #expect(detector.meteredInterfaces(links: links, now: 1_704_990_000) == [10])
}

@Test func dhclientNewestLeaseWins() {
    let detector = MeteredLeaseDetector(
        networkdLeaseDirectory: "/nonexistent", networkManagerDirectory: "/nonexistent",
        dhclientDirectories: [leases + "/dhcp", leases + "/dhclient", "/nonexistent"])
    let links: [(index: Int32, name: String)] = [(2, "wlan0"), (3, "eth1"), (4, "eth2"), (5, "eth3")]
    // wlan0's home lease runs out later than the phone's, so the home network is current: not metered.
    #expect(detector.meteredInterfaces(links: links, now: now) == [3])
    // Once the home lease has been replaced by the phone's (addresses say so), wlan0 is metered.
    let onPhone = detector.meteredInterfaces(links: links, currentAddresses: [2: ["192.168.43.17"]], now: now)
    #expect(onPhone == [2, 3])
    // eth1's address no longer matches its metered lease: ignored.
    let moved = detector.meteredInterfaces(links: links, currentAddresses: [3: ["192.168.42.99"]], now: now)
    #expect(moved.isEmpty)
}

@Test func missingDirectoriesFindNothing() {
    let detector = MeteredLeaseDetector(
        networkdLeaseDirectory: "/nonexistent", networkManagerDirectory: "/nonexistent/nm",
        dhclientDirectories: ["/nonexistent/dhcp", "/proc/self/fd"])
    #expect(detector.meteredInterfaces(links: [(1, "lo"), (2, "eth0")]).isEmpty)
}

@Test func dhclientFileNames() {
    #expect(MeteredLeaseDetector.dhclientInterface(fileName: "dhclient.leases") == "")
    #expect(MeteredLeaseDetector.dhclientInterface(fileName: "dhclient.wlan0.leases") == "wlan0")
    #expect(MeteredLeaseDetector.dhclientInterface(fileName: "dhclient--eth3.lease") == "eth3")
    #expect(
        MeteredLeaseDetector.dhclientInterface(fileName: "dhclient-11111111-2222-4333-8444-555555555555-em1.lease")
            == "em1")
    #expect(MeteredLeaseDetector.dhclientInterface(fileName: "dhclient6.leases") == nil)
    #expect(MeteredLeaseDetector.dhclientInterface(fileName: "dhclient6--eth3.lease") == nil)
    #expect(MeteredLeaseDetector.dhclientInterface(fileName: "dhcpd.leases") == nil)
}

@Test func hotspotSigns() {
    #expect(HotspotSigns.isApplePersonalHotspot(address: "172.20.10.2", prefixLength: 28, router: "172.20.10.1"))
    #expect(HotspotSigns.isApplePersonalHotspot(address: "172.20.10.14", prefixLength: 28, router: "172.20.10.1"))
    #expect(!HotspotSigns.isApplePersonalHotspot(address: "172.20.10.2", prefixLength: 24, router: "172.20.10.1"))
    #expect(!HotspotSigns.isApplePersonalHotspot(address: "172.20.10.2", prefixLength: 28, router: "172.20.10.14"))
    #expect(!HotspotSigns.isApplePersonalHotspot(address: "172.20.11.2", prefixLength: 28, router: "172.20.10.1"))
    #expect(!HotspotSigns.isApplePersonalHotspot(address: "172.20.10.1", prefixLength: 28, router: "172.20.10.1"))
    #expect(HotspotSigns.prefixLength(netmask: "255.255.255.240") == 28)
    #expect(HotspotSigns.prefixLength(netmask: "0.0.0.0") == 0)
    #expect(HotspotSigns.prefixLength(netmask: "255.255.255.255") == 32)
    #expect(HotspotSigns.prefixLength(netmask: "255.0.255.0") == nil)
    #expect(HotspotSigns.isAndroidHotspotBSSID([0x02, 0x1a, 0x11, 0xf0, 0x12, 0x34]))
    #expect(!HotspotSigns.isAndroidHotspotBSSID([0x00, 0x1a, 0x11, 0xf0, 0x12, 0x34]))
    #expect(!HotspotSigns.isAndroidHotspotBSSID([0x02, 0x1a, 0x11]))
}
