// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathModel
import PathMonitor
import PathProtocol
import Testing

/// Replies of any realistic size (issue 10): with 1,000 interfaces, each with an address, and 10,000 remembered
/// networks, pathctl and the client library read every reply. Before, any reply over 64 KiB was refused
/// ("message larger than 65536 bytes") from about 200 interfaces or 540 networks.
@Suite(.serialized) struct ScaleTests {
    static let pairs = 500
    static let networkCount = 10_000

    /// A daemon over 500 veth pairs (both ends in its namespace: 1,000 interfaces and lo), an address on each,
    /// one default route, and a policy file of 10,000 networks written before it starts.
    static func start() throws -> (NetworkNamespace, Daemon) {
        let namespace = try NetworkNamespace()
        do {
            var commands: [String] = []
            for pair in 0..<pairs { commands.append("link add v\(pair) type veth peer name p\(pair)") }
            for pair in 0..<pairs { commands += ["link set v\(pair) up", "link set p\(pair) up"] }
            for pair in 0..<pairs {
                commands.append("address add 10.\(pair / 250).\(pair % 250).1/24 dev v\(pair)")
                commands.append("address add 10.\(100 + pair / 250).\(pair % 250).1/24 dev p\(pair)")
            }
            commands.append("route add default via 10.0.0.2 dev v0")
            try namespace.batch(commands)
            let daemon = try Daemon(in: namespace)
            try FileManager.default.createDirectory(atPath: daemon.stateDirectory, withIntermediateDirectories: true)
            try Data(policyFile().utf8).write(to: URL(filePath: daemon.stateDirectory + "/policy.json"))
            do {
                try daemon.start(timeout: .seconds(60))
            } catch {
                daemon.cleanUp()
                throw error
            }
            return (namespace, daemon)
        } catch {
            namespace.delete()
            throw error
        }
    }

    /// 10,000 Wi-Fi networks with SSIDs of the full 32 bytes, every other one in Low Data Mode.
    static func policyFile() -> String {
        let entries = (0..<networkCount).map { index in
            let ssid = "network-" + String(repeating: "x", count: 18) + String(format: "%06d", index)
            return #"{"key": "wifi:\#(ssid)", "constrained": \#(index % 2 == 0), "expensive": null}"#
        }
        return "{\"version\": 1, \"networks\": [\n" + entries.joined(separator: ",\n") + "\n]}\n"
    }

    @Test func everyClientReadsLargeReplies() async throws {
        let (namespace, daemon) = try Self.start()
        defer {
            daemon.cleanUp()
            namespace.delete()
        }
        let pathctl = product("pathctl")
        let socket = ["--socket", daemon.socketPath]

        // The daemon sees every link once its first dump is applied (READY=1 came after it).
        let connection = try PathmondConnection(socketPath: daemon.socketPath)
        defer { connection.close() }
        let interfaces = try connection.interfaces()
        #expect(interfaces.count == 2 * Self.pairs + 1)
        let interfacesReplySize = try JSONEncoder().encode(["interfaces": interfaces]).count
        print("ListInterfaces reply: \(interfaces.count) interfaces, \(interfacesReplySize) bytes")
        #expect(interfacesReplySize > VarlinkCodec.maximumMessageSize)
        let networks = try connection.networks()
        #expect(networks.count == Self.networkCount)
        let networksReplySize = try JSONEncoder().encode(["networks": networks]).count
        print("ListNetworks reply: \(networks.count) networks, \(networksReplySize) bytes")
        #expect(networksReplySize > VarlinkCodec.maximumMessageSize)

        let status = try runCommand([pathctl, "status"] + socket).output
        let rows = status.split(separator: "\n").filter { $0.contains("10.") }
        #expect(rows.count >= 2 * Self.pairs, "status printed \(rows.count) rows with addresses")
        #expect(status.hasPrefix("Path: satisfied via v0"))

        let json = try runCommand([pathctl, "status", "--json"] + socket).output
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect((document["interfaces"] as? [Any])?.count == 2 * Self.pairs + 1)

        let listed = try runCommand([pathctl, "networks"] + socket).output
        #expect(listed.split(separator: "\n").filter { $0.contains("wifi:network-") }.count == Self.networkCount)
        let listedJSON = try runCommand([pathctl, "networks", "--json"] + socket).output
        let networkDocument = try JSONSerialization.jsonObject(with: Data(listedJSON.utf8))
        #expect((networkDocument as? [Any])?.count == Self.networkCount)
    }

    /// A key no network can have is refused with a clear Varlink error, before it reaches the policy.
    @Test func overlongNetworkKeysAreRefused() throws {
        let namespace = try NetworkNamespace()
        let daemon = try Daemon(in: namespace)
        defer {
            daemon.cleanUp()
            namespace.delete()
        }
        try daemon.start()
        let connection = try PathmondConnection(socketPath: daemon.socketPath)
        defer { connection.close() }
        for key in ["wifi:" + String(repeating: "%41", count: 33), "cellular:" + String(repeating: "a", count: 60_000)]
        {
            #expect(throws: PathmondClientError.remote(.invalidNetworkKey(key: key))) {
                try connection.setConstrained(true, key: key)
            }
        }
        #expect(try connection.networks().isEmpty)
        // The longest key that can exist still works: a 32-byte SSID with every byte escaped.
        let longest = "wifi:" + String(repeating: "%00", count: 32)
        #expect(try connection.setConstrained(true, key: longest).key == longest)
    }
}
