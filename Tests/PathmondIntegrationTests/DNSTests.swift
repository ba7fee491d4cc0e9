// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathMonitor
import Testing

/// supportsDNS follows the resolver configuration as it changes on disk, through inotify, with no kernel event.
@Suite(.serialized) struct DNSTests {
    /// Writes a file the way resolvconf and NetworkManager do: a new file renamed over the old one.
    static func replace(_ path: String, with text: String) throws {
        let temporary = path + ".new"
        try Data(text.utf8).write(to: URL(filePath: temporary))
        guard rename(temporary, path) == 0 else { throw POSIXError(.EIO) }
    }

    @Test func supportsDNSFollowsResolvConf() async throws {
        let scenario = try Scenario.start { try $0.addWiredUplink(routed: true) }
        defer { #expect(scenario.tearDown() == 0) }
        let log = scenario.client.log
        let before = try await log.nextPath { $0.status == .satisfied }
        #expect(!before.supportsDNS)

        try Self.replace(scenario.daemon.resolvConfPath, with: "# generated\nnameserver 192.0.2.53\n")
        _ = try await log.nextPath { $0.supportsDNS }
        try Self.replace(scenario.daemon.resolvConfPath, with: "search example.org\n")
        _ = try await log.nextPath { $0.status == .satisfied && !$0.supportsDNS }
    }

    @Test func resolvedStubCountsOnlyTheLinksServers() async throws {
        let scenario = try Scenario.start { namespace in
            try namespace.addWiredUplink(routed: true)
            try namespace.addVeth("eth1", peer: "eth1-peer")
        }
        defer { #expect(scenario.tearDown() == 0) }
        let log = scenario.client.log
        _ = try await log.nextPath { $0.status == .satisfied }
        let eth1 = try interfaceIndex(of: "eth1", socketPath: scenario.daemon.socketPath)
        let eth0 = try interfaceIndex(of: "eth0", socketPath: scenario.daemon.socketPath)
        let resolve = scenario.daemon.directory.appending(path: "resolve")
        try FileManager.default.createDirectory(at: resolve.appending(path: "netif"), withIntermediateDirectories: true)
        // resolved knows a server only on eth1, which carries no traffic to the internet; then resolv.conf
        // switches to resolved's stub: still no DNS for the path.
        try Self.replace(resolve.appending(path: "netif/\(eth1)").path, with: "SERVERS=192.0.2.53\n")
        try Self.replace(resolve.appending(path: "netif/\(eth0)").path, with: "SERVERS=\n")
        try Self.replace(resolve.appending(path: "resolv.conf").path, with: "nameserver 192.0.2.53\n")
        try Self.replace(scenario.daemon.resolvConfPath, with: "nameserver 127.0.0.53\noptions edns0 trust-ad\n")
        // Then eth0 gets one.
        try Self.replace(resolve.appending(path: "netif/\(eth0)").path, with: "SERVERS=192.0.2.54\n")
        try Self.replace(
            resolve.appending(path: "resolv.conf").path, with: "nameserver 192.0.2.53\nnameserver 192.0.2.54\n")
        _ = try await log.nextPath { $0.supportsDNS }
        #expect(await log.paths.filter(\.supportsDNS).count == 1, "no DNS while only eth1 had a server")
    }
}
