// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathMonitor
import Testing

/// A phone hotspot says so in its DHCP lease (ANDROID_METERED in option 43): the path turns expensive as soon as
/// the address from that lease appears, and the user's explicit setting still wins.
@Suite(.serialized) struct MeteredDetectionTests {
    static let configuration = """
        [interface wlan*]
        type = wifi
        network = wifi:AndroidAP
        """

    @Test func androidMeteredLeaseMakesThePathExpensive() async throws {
        let leases = URL(filePath: "/tmp/pmit-leases-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: leases, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: leases) }
        let scenario = try Scenario.start(
            configuration: Self.configuration, arguments: ["--networkd-leases", leases.path]
        ) {
            try $0.addVeth("wlan0", peer: "wlan0-peer")
        }
        defer { #expect(scenario.tearDown() == 0) }
        let log = scenario.client.log
        _ = try await log.nextPath { $0.unsatisfiedReason == .noAddress }

        // systemd-networkd writes the lease under the interface index, then configures the address.
        let index = try interfaceIndex(of: "wlan0", socketPath: scenario.daemon.socketPath)
        let lease = """
            # This is private data. Do not parse.
            ADDRESS=192.168.43.17
            NETMASK=255.255.255.0
            ROUTER=192.168.43.1
            LIFETIME=1h
            VENDOR_SPECIFIC=414e44524f49445f4d455445524544
            """
        try Data(lease.utf8).write(to: leases.appending(path: "\(index)"))
        try scenario.namespace.ip("address add 192.168.43.17/24 dev wlan0")
        try scenario.namespace.ip("route add default via 192.168.43.1 dev wlan0")
        let metered = try await log.nextPath { $0.status == .satisfied && $0.isExpensive }
        #expect(metered.availableInterfaces.first?.isExpensive == true)

        // "It's an unlimited plan": the explicit setting beats detection.
        let set = try runCommand([
            product("pathctl"), "set-expensive", "wlan0", "--off", "--socket", scenario.daemon.socketPath,
        ])
        #expect(set.status == 0)
        _ = try await log.nextPath { $0.status == .satisfied && !$0.isExpensive }
    }
}

/// The kernel's index of an interface, as the daemon reports it.
func interfaceIndex(of name: String, socketPath: String) throws -> Int32 {
    let interfaces = try PathmondConnection(socketPath: socketPath).interfaces()
    guard let index = interfaces.first(where: { $0.name == name })?.index else {
        throw PathmondClientError.invalidReply("no interface \(name)")
    }
    return index
}
