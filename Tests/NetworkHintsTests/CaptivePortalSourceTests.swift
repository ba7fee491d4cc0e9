// SPDX-License-Identifier: Apache-2.0
import DBus
import FuzzSupport
import PathModel
import Testing

@testable import NetworkHints

/// Where a captive portal's API URI (RFC 8910) is recorded on Linux: dhclient's leases, systemd-networkd's link
/// state files; and NetworkManager's connectivity check per device.
@Suite struct CaptivePortalSourceTests {
    @Test func dhclientRecordsOption114UnderEachOfItsNames() {
        let leases = LeaseFile.parseDhclient(
            fixtureText("leases/portal/dhclient.wlan0.leases"), interface: "wlan0")
        #expect(leases.map(\.captivePortal) == ["https://portal.hotel.example/api/capport", "https://cafe.example/"])
        let declared = LeaseFile.parseDhclient(
            #"lease { option captive-portal "https://a.example/capport"; }"#, interface: nil)
        #expect(declared.first?.captivePortal == "https://a.example/capport")
    }

    /// A value with control characters, spaces or past 255 bytes is not a URI a network sent.
    @Test(arguments: [
        #"option default-url "";"#, #"option default-url "https://a.example/\012x";"#,
        #"option default-url "https://a b.example/";"#,
        "option default-url \"https://\(String(repeating: "a", count: 250)).example/\";", "option unknown-114 zz;",
    ])
    func implausibleValuesAreDropped(statement: String) {
        let lease = LeaseFile.parseDhclient("lease { \(statement) }", interface: nil).first
        #expect(lease != nil)
        #expect(lease?.captivePortal == nil)
    }

    @Test func networkdLinkStateFilesNameThePortal() {
        let files = CaptivePortalFiles(networkdLinkDirectory: fixtureRoot + "/netif/links")
        #expect(
            files.networkdPortals(links: [2, 3, 4]) == [
                3: "https://portal.hotel.example/api/capport?room=unknown",
                4: CaptivePortalHint.unrestricted,
            ])
        #expect(CaptivePortalFiles.captivePortal(linkState: "CAPTIVE_PORTAL=\n") == nil)
        #expect(CaptivePortalFiles.captivePortal(linkState: "CAPTIVE_PORTAL=a\nCAPTIVE_PORTAL=b\n") == "b")
        #expect(CaptivePortalFiles.captivePortal(linkState: "# CAPTIVE_PORTAL=https://x/\n") == nil)
    }

    @Test func theHintResolvesTheUnrestrictedURNAndKeepsAnnouncedURIsUnknown() {
        #expect(CaptivePortalHint(uri: CaptivePortalHint.unrestricted).resolved == (.open, nil))
        #expect(CaptivePortalHint(state: .captive, uri: CaptivePortalHint.unrestricted).resolved == (.captive, nil))
        #expect(CaptivePortalHint(uri: "https://p.example/").resolved == (.unknown, "https://p.example/"))
        #expect(
            CaptivePortalHint(state: .captive, uri: "https://p.example/").resolved == (.captive, "https://p.example/"))
        #expect(CaptivePortalHint(state: .open, uri: "bad uri").resolved == (.open, nil))
    }

    /// NMConnectivityState per family: a portal on either family holds the device; full on one is open.
    @Test(arguments: Array(UInt32(0)...5), Array(UInt32(0)...5))
    func networkManagerConnectivityCombines(ip4: UInt32, ip6: UInt32) throws {
        let properties: [String: BusValue] = [
            "Interface": .variant(.string("wlan0")), "Ip4Connectivity": .variant(.uint32(ip4)),
            "Ip6Connectivity": .variant(.uint32(ip6)),
        ]
        let device = try #require(NetworkManagerObjects.device(fromProperties: properties))
        let expected: NetworkManagerConnectivity? =
            if ip4 == 2 || ip6 == 2 { .portal } else if ip4 == 4 || ip6 == 4 { .full } else { nil }
        let published = NetworkManagerObjects.connectivityByInterface([device])["wlan0"]
        if let expected {
            #expect(published == expected)
        } else {
            #expect(published != .portal && published != .full)
        }
    }

    /// Mutated link state files: the parser never traps, and whatever it returns is a plausible URI.
    @Test func linkStateParserSurvivesMutatedFiles() {
        let seeds = [fixtureBytes("netif/links/3"), fixtureBytes("netif/links/4")]
        let words = ["CAPTIVE_PORTAL=", "\n", "\r", "=", "\"", "'", "#", ";", " ", "https://", "\u{0}", "é"]
        let mutator = Mutator(seeds: seeds, dictionary: words.map { Array($0.utf8) }, seed: 0xCA97_1BE0)
        let report = Fuzz.run("networkd-link-state", count: 100_000, mutator: mutator) { input in
            guard let uri = CaptivePortalFiles.captivePortal(linkState: String(decoding: input, as: UTF8.self))
            else { return false }
            return CaptivePortalHint.isValidURI(uri)
        }
        #expect(report.accepted > 1000 && report.accepted < report.count)
        #expect(report.peakMemoryGrowthKiB < Fuzz.memoryBoundKiB)
    }

    /// Mutated dhclient leases carrying option 114: whatever comes out is a plausible URI.
    @Test func dhclientOption114SurvivesMutatedLeases() {
        let seeds = [fixtureBytes("leases/portal/dhclient.wlan0.leases")]
        let words = [
            "option default-url ", "option unknown-114 ", "option captive-portal ", "\"", "\\", "\\012", ":", "68:",
            ";", "{", "}", "lease {",
        ]
        let mutator = Mutator(seeds: seeds, dictionary: words.map { Array($0.utf8) }, seed: 0x0114_0114)
        let report = Fuzz.run("dhclient-option-114", count: 100_000, mutator: mutator) { input in
            let leases = LeaseFile.parseDhclient(String(decoding: input, as: UTF8.self), interface: "wlan0")
            let uris = leases.compactMap(\.captivePortal)
            return !uris.isEmpty && uris.allSatisfy(CaptivePortalHint.isValidURI)
        }
        #expect(report.accepted > 1000 && report.accepted < report.count)
        #expect(report.peakMemoryGrowthKiB < Fuzz.memoryBoundKiB)
    }
}

/// NetworkManager's connectivity check followed through PropertiesChanged on the device, on a private bus.
@Suite(.serialized, .enabled(if: canRunBusTests)) struct NetworkManagerConnectivityTests {
    @Test func followsPortalAndFull() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let networkManager = try StandIn("networkmanager", bus: bus)
        defer { networkManager.stop() }
        try networkManager.send("add wlan0 4")
        let box = WatcherBox<NetworkManagerWatcher>()
        let changes = Changes { box.watcher?.connectivityByInterface ?? [:] }
        let watcher = NetworkManagerWatcher(onChange: { changes.continuation.yield() })
        box.watcher = watcher
        let watch = SystemBusWatch(
            address: bus.address, networkManager: watcher, modemManager: nil, onProblem: { _ in })
        watch.start()
        defer { watch.stop() }
        #expect(watcher.connectivityByInterface.isEmpty)

        try networkManager.send("connectivity wlan0 2 0")
        #expect(await changes.until { $0 == ["wlan0": .portal] } != nil)
        // NetworkManager checks: pathmond's own check (`[connectivity]`) stays off by default.
        #expect(watcher.connectivityCheckRuns)
        try networkManager.send("connectivity wlan0 4 1")
        #expect(await changes.until { $0 == ["wlan0": .full] } != nil)
        try networkManager.send("connectivity wlan0 0 0")
        #expect(await changes.until { $0.isEmpty } != nil)

        // With its check off, NetworkManager makes up FULL for a device with a default route (seen on Debian 12
        // and 13 in the booted test): that says nothing about a portal, and is not taken as "open".
        try networkManager.send("checking off")
        try networkManager.send("connectivity wlan0 4 0")
        try networkManager.send("add eth0 4")
        try networkManager.send("connectivity eth0 2 0")
        try await Task.sleep(for: .milliseconds(300))
        #expect(watcher.connectivityByInterface.isEmpty, "\(watcher.connectivityByInterface)")
        #expect(!watcher.connectivityCheckRuns, "with NetworkManager's check off, pathmond's own runs")
        try networkManager.send("checking on")
        #expect(await changes.until { $0 == ["wlan0": .full, "eth0": .portal] } != nil)
        #expect(watcher.connectivityCheckRuns)
    }

    /// The check's flags as NetworkManager's manager object carries them.
    @Test func theCheckRunsOnlyEnabledAndConfigured() {
        var check = NetworkManagerConnectivityCheck()
        #expect(!check.runs, "not believed before the manager said")
        var said = check.apply(["ConnectivityCheckEnabled": .variant(.boolean(true))])
        #expect(said && check.runs)
        said = check.apply(["ConnectivityCheckAvailable": .variant(.boolean(false))])
        #expect(said && !check.runs, "enabled without a URI checks nothing")
        said = check.apply(["Version": .variant(.string("1.42.4"))])
        #expect(!said && !check.runs)
        check.apply(["ConnectivityCheckAvailable": .variant(.boolean(true))])
        #expect(check.runs)
        check.apply(["ConnectivityCheckEnabled": .variant(.boolean(false))])
        #expect(!check.runs)
        check.apply(["ConnectivityCheckEnabled": .variant(.string("yes"))])
        #expect(!check.runs, "a wrong type changes nothing")
    }
}
