// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathMonitor
import PathProtocol
import Testing

/// A captive portal end to end: systemd-networkd's link state file names the portal API (RFC 8910), the
/// NetworkManager stand-in's connectivity check says PORTAL, then FULL. The path follows; `pathctl check
/// --unmetered` holds back work while captive; a real GLib process sees G_NETWORK_CONNECTIVITY_PORTAL.
@Suite(
    .serialized,
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") && getuid() == 0))
struct CaptivePortalIntegrationTests {
    static let configuration = """
        [interface wlan*]
        type = wifi
        """
    static let portal = "https://portal.hotel.example/api/capport"

    @Test func thePathFollowsThePortalAndGLibReportsIt() async throws {
        let bus = try PrivateSystemBus()
        defer { bus.stop() }
        let links = bus.directory.appending(path: "links").path
        try FileManager.default.createDirectory(atPath: links, withIntermediateDirectories: true)
        let scenario = try Scenario.start(
            configuration: Self.configuration, arguments: ["--system-bus", bus.address, "--networkd-links", links]
        ) { namespace in
            try namespace.addVeth("wlan0", peer: "wlan0-peer")
            try namespace.ip("address add 10.20.0.57/22 dev wlan0")
            try namespace.ip("route add default via 10.20.0.1 dev wlan0")
        }
        defer { #expect(scenario.tearDown() == 0) }
        let networkManager = try StandInProcess("networkmanager", bus: bus)
        defer { networkManager.stop() }
        try networkManager.send("add wlan0 4")
        let log = scenario.client.log
        _ = try await log.nextPath { $0.status == .satisfied }
        let socket = scenario.daemon.socketPath
        let connection = try PathmondConnection(socketPath: socket)
        let index = try #require(try connection.interfaces().first { $0.name == "wlan0" }?.index)

        // networkd records the URI the DHCP server sent: announced, not yet checked.
        try Data("OPER_STATE=routable\nCAPTIVE_PORTAL=\(Self.portal)\n".utf8)
            .write(to: URL(filePath: links + "/\(index)"))
        let announced = try await log.nextPath { $0.captivePortalURI == Self.portal }
        #expect(announced.captivePortal == .unknown)
        let check = [product("pathctl"), "check", "--unmetered", "--socket", socket]
        #expect(try runCommand(check, check: false).status == 0)

        let glib = try GLibMonitor(in: scenario.namespace, socketPath: socket, directory: scenario.daemon.directory)
        defer { glib.stop() }
        #expect(
            try glib.next().properties == GLibMonitor.Properties(available: true, metered: false, connectivity: "full"))

        // NetworkManager's check is answered by the portal.
        try networkManager.send("connectivity wlan0 2 0")
        let captive = try await log.nextPath { $0.captivePortal == .captive }
        #expect(captive.status == .satisfied && captive.captivePortalURI == Self.portal)
        #expect(captive.availableInterfaces.first?.captivePortal == .captive)
        var (notified, change) = try glib.nextChange()
        #expect(notified == ["connectivity"])
        #expect(change.properties == GLibMonitor.Properties(available: true, metered: false, connectivity: "portal"))
        let held = try runCommand(check, check: false)
        #expect(held.status == 4)
        #expect(held.errorOutput.contains("captive portal"), "\(held.errorOutput)")
        let status = try runCommand([product("pathctl"), "status", "--no-pager", "--socket", socket], check: false)
        #expect(status.output.contains("captive portal \(Self.portal)"), "\(status.output)")
        let history = try connection.history(PathHistoryQuery(limit: 1))
        #expect(history.last?.cause.detection == "captivePortal", "\(history)")

        // The user signed in; NetworkManager's next check passes.
        try networkManager.send("connectivity wlan0 4 0")
        let open = try await log.nextPath { $0.captivePortal == .open }
        #expect(open.captivePortalURI == Self.portal)
        (notified, change) = try glib.nextChange()
        #expect(notified == ["connectivity"])
        #expect(change.properties?.connectivity == "full")
        #expect(try runCommand(check, check: false).status == 0)
    }
}
