// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PathModel
import PathMonitor
import Testing

@testable import Netlink

/// Paths for what a client may use, through the CLI flags and the client library, and a flow described from a
/// real connected socket.
@Suite(.serialized) struct RequirementsTests {
    static func cellularOnly(_ namespace: NetworkNamespace) throws {
        try namespace.addVeth("wwan0", peer: "wwan0-peer")
        try namespace.ip("address add 203.0.113.10/24 dev wwan0")
        try namespace.ip("route add default via 203.0.113.1 dev wwan0")
    }

    func status(_ scenario: Scenario, _ flags: [String]) throws -> String {
        try runCommand([product("pathctl"), "status", "--socket", scenario.daemon.socketPath] + flags).output
            .split(separator: "\n").first.map(String.init) ?? ""
    }

    @Test func cliFlagsNarrowThePathAndNameTheReason() async throws {
        let scenario = try Scenario.start(prepare: Self.cellularOnly)
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }

        #expect(try status(scenario, []).hasPrefix("Path: satisfied via wwan0 (cellular); IPv4, expensive"))
        #expect(
            try status(scenario, ["--no-expensive"])
                == "Path: unsatisfied: only expensive interfaces are usable, and expensive is prohibited")
        #expect(
            try status(scenario, ["--require", "wifi"])
                == "Path: unsatisfied: only interfaces the parameters prohibit are usable")
        #expect(
            try status(scenario, ["--prohibit", "cellular"])
                == "Path: unsatisfied: only interfaces the parameters prohibit are usable")
        #expect(
            try status(scenario, ["--family", "6"])
                == "Path: unsatisfied: no usable interface routes the required IP version")
        #expect(try status(scenario, ["--interface", "wwan0", "--family", "4"]).hasPrefix("Path: satisfied via wwan0"))
        let bad = try runCommand(
            [product("pathctl"), "status", "--require", "satellite", "--socket", scenario.daemon.socketPath],
            check: false)
        #expect(bad.status == 64)
    }

    @Test func monitorWithRequirementsFollowsItsOwnPath() async throws {
        let scenario = try Scenario.start(prepare: Self.cellularOnly)
        defer { #expect(scenario.tearDown() == 0) }
        let frugal = NetworkPathMonitor(
            parameters: PathParameters(prohibitsExpensive: true), socketPath: scenario.daemon.socketPath)
        defer { frugal.cancel() }
        var paths = frugal.paths.makeAsyncIterator()
        #expect(await paths.next()?.unsatisfiedReason == .onlyExpensiveInterfaces)

        // Wi-Fi arrives: usable for the frugal client too.
        try scenario.namespace.addVeth("wlan0", peer: "wlan0-peer")
        try scenario.namespace.ip("address add 198.51.100.10/24 dev wlan0")
        try scenario.namespace.ip("route add default via 198.51.100.1 dev wlan0 metric 600")
        var next = await paths.next()
        while next?.status != .satisfied, next != nil { next = await paths.next() }
        #expect(next?.availableInterfaces.map(\.name) == ["wlan0"])
        #expect(next?.isExpensive == false)
    }

    @Test func flowFromAConnectedSocket() async throws {
        let scenario = try Scenario.start { namespace in
            try namespace.addWiredUplink(routed: true)
            try namespace.farIP("address add 192.0.2.1/24 dev eth0-peer")
        }
        defer { #expect(scenario.tearDown() == 0) }
        // A listener on the far side and a client socket on ours, each made in its namespace; sockets keep the
        // namespace they were made in, so the test can use them from here.
        let listener = try Netlink.NetworkNamespace.run(in: "/var/run/netns/\(scenario.namespace.far)") {
            () throws(NetlinkError) in
            try TCPTestSocket.listen(on: "192.0.2.1", port: 7070)
        }
        defer { close(listener) }
        let client = try Netlink.NetworkNamespace.run(in: "/var/run/netns/\(scenario.namespace.name)") {
            () throws(NetlinkError) in
            try TCPTestSocket.connect(to: "192.0.2.1", port: 7070)
        }
        defer { close(client) }

        let monitor = try FlowMonitor(connectedSocket: client, socketPath: scenario.daemon.socketPath)
        defer { monitor.cancel() }
        #expect(monitor.flow.interfaceName == "eth0")
        #expect(monitor.flow.localAddress == IPAddress("192.0.2.10"))
        #expect(monitor.flow.remoteAddress == IPAddress("192.0.2.1"))
        // A dual-stack (AF_INET6) socket talking IPv4 reports ::ffff:192.0.2.10; the flow is still eth0's.
        let dualStack = try Netlink.NetworkNamespace.run(in: "/var/run/netns/\(scenario.namespace.name)") {
            () throws(NetlinkError) in
            try TCPTestSocket.connectDualStack(toIPv4: "192.0.2.1", port: 7070)
        }
        defer { close(dualStack) }
        let mapped = try FlowMonitor(connectedSocket: dualStack, socketPath: scenario.daemon.socketPath)
        defer { mapped.cancel() }
        #expect(mapped.flow.interfaceName == "eth0")
        #expect(mapped.flow.remoteAddress == IPAddress("192.0.2.1"))

        let log = FlowLog(monitor)
        _ = try await log.next("viable") { $0 == FlowStatus(isViable: true, betterPathAvailable: false) }
        try scenario.namespace.ip("address del 192.0.2.10/24 dev eth0")
        _ = try await log.next("its address gone") { !$0.isViable }

        // Not a socket at all: a clear error, not a crash.
        #expect(throws: FlowDescriptionError.self) {
            try FlowMonitor(connectedSocket: -1, socketPath: scenario.daemon.socketPath)
        }
    }
}

/// Plain blocking TCP sockets for the test, made while the thread is inside a namespace.
enum TCPTestSocket {
    static func address(_ text: String, port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, text, &address.sin_addr)
        return address
    }

    static func listen(on host: String, port: UInt16) throws(NetlinkError) -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = address(host, port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, Glibc.listen(descriptor, 4) == 0 else { throw .system(errno: errno) }
        return descriptor
    }

    /// An AF_INET6 socket connected to an IPv4 address through its mapped form, as dual-stack apps do.
    static func connectDualStack(toIPv4 host: String, port: UInt16) throws(NetlinkError) -> Int32 {
        let descriptor = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = port.bigEndian
        inet_pton(AF_INET6, "::ffff:\(host)", &address.sin6_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
            }
        }
        guard connected == 0 else { throw .system(errno: errno) }
        return descriptor
    }

    static func connect(to host: String, port: UInt16) throws(NetlinkError) -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = address(host, port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw .system(errno: errno) }
        return descriptor
    }
}
