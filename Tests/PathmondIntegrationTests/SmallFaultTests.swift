// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PathMonitor
import Testing

/// The smaller faults of the adversarial review (issue 10), end to end against a real daemon; each test failed
/// before its fix.
@Suite(.serialized) struct SmallFaultTests {
    static func scenario(configuration: String = Scenario.testConfiguration) throws -> Scenario {
        try Scenario.start(configuration: configuration) { namespace in
            try namespace.addWiredUplink(routed: true)
        }
    }

    @Test func anAdminGroupThatDoesNotExistIsReportedAtStart() throws {
        let scenario = try Self.scenario(configuration: "[policy]\nadmin-group = pathmond-no-such-group\n")
        defer { #expect(scenario.tearDown() == 0) }
        let log = scenario.daemon.log
        #expect(log.contains("admin-group pathmond-no-such-group does not exist"), "\(log)")
    }

    /// Membership is the caller's own groups (SO_PEERGROUPS): nobody is in no admin group by the user database,
    /// but a process given group adm (gid 4) at exec is; before, getgrouplist(nobody) said no.
    @Test func adminGroupMembershipIsTheCallersActualGroups() throws {
        let scenario = try Self.scenario(configuration: "[policy]\nadmin-group = adm\n")
        defer { #expect(scenario.tearDown() == 0) }
        let command = [product("pathctl"), "set-constrained", "--key", "wifi:Shared", "--socket"]
        let given = try runCommand(
            ["setpriv", "--reuid=65534", "--regid=65534", "--groups=4"] + command + [scenario.daemon.socketPath],
            check: false)
        #expect(given.status == 0, "\(given.errorOutput)")
        let cleared = try runCommand(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + command + [scenario.daemon.socketPath],
            check: false)
        #expect(cleared.status != 0)
        #expect(cleared.errorOutput.contains("only root and members of adm"), "\(cleared.errorOutput)")
    }

    @Test func aOnewayWatchPathDoesNotStream() throws {
        let scenario = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        let client = try RawClient(socketPath: scenario.daemon.socketPath)
        try client.send(Array(#"{"method":"io.pathmond.WatchPath","more":true,"oneway":true}"#.utf8) + [0])
        // Nothing comes for the oneway call, and the connection is still free for another: its reply is first.
        let info = try client.call(#"{"method":"org.varlink.service.GetInfo"}"#)
        #expect((info["parameters"] as? [String: Any])?["product"] as? String == "pathmond", "\(info)")
        try scenario.namespace.ip("route del default via 192.0.2.1 dev eth0")
        #expect(try client.receive(timeout: .milliseconds(500)) == nil)
    }

    /// 200 oneway policy writes in one send: each waits for the one before (a write is durable before the next),
    /// so they queue; the client is slowed, not disconnected, and every write lands.
    @Test func pipelinedOnewayCallsAreAllServed() throws {
        let scenario = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        let client = try RawClient(socketPath: scenario.daemon.socketPath)
        var bytes: [UInt8] = []
        for index in 0..<200 {
            let call =
                #"{"method":"io.pathmond.SetConstrained","oneway":true,"#
                + #""parameters":{"key":"wifi:net\#(index)","constrained":true}}"#
            bytes += Array(call.utf8) + [0]
        }
        try client.send(bytes)
        let info = try client.call(#"{"method":"org.varlink.service.GetInfo"}"#)
        #expect(info["error"] == nil, "\(info)")
        #expect((info["parameters"] as? [String: Any])?["product"] as? String == "pathmond")
        let networks = try PathmondConnection(socketPath: scenario.daemon.socketPath).networks()
        #expect(networks.count == 200)
    }

    @Test func controlCharactersInInterfaceNamesAreEscapedByPathctl() async throws {
        let name = "ev\u{1b}[2Jil"
        let scenario = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        try runCommand([
            "ip", "-n", scenario.namespace.name, "link", "add", "name", name, "type", "veth", "peer", "name",
            "evilpeer",
        ])
        try runCommand(["ip", "-n", scenario.namespace.name, "link", "set", name, "up"])
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
        let socket = scenario.daemon.socketPath
        try await eventually("the daemon lists \(name)") {
            try PathmondConnection(socketPath: socket).interfaces().contains { $0.name == name }
        }
        let output = try runCommand([product("pathctl"), "status", "--socket", socket]).output
        #expect(!output.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        #expect(output.contains("ev\\x1b[2Jil"), "\(output)")
    }
}

/// Hostile policy files (issue 10): the daemon sets them aside, starts and serves, and says why in GetStatus.
@Suite(.serialized) struct HostileStateFileTests {
    @Test(arguments: ["fifo", "zero", "directory"])
    func theDaemonStartsAndServesWhatever(_ kind: String) throws {
        let namespace = try NetworkNamespace()
        let daemon = try Daemon(in: namespace)
        defer {
            daemon.cleanUp()
            namespace.delete()
        }
        try FileManager.default.createDirectory(atPath: daemon.stateDirectory, withIntermediateDirectories: true)
        let policy = daemon.stateDirectory + "/policy.json"
        switch kind {
        case "fifo": #expect(mkfifo(policy, 0o644) == 0)
        case "zero": #expect(symlink("/dev/zero", policy) == 0)
        default: #expect(mkdir(policy, 0o755) == 0)
        }
        try daemon.start(timeout: .seconds(20))
        let connection = try PathmondConnection(socketPath: daemon.socketPath)
        defer { connection.close() }
        _ = try connection.path()
        let status = try connection.status()
        let problem = try #require(status.policyProblem)
        #expect(problem.contains("kept aside"), "\(problem)")
        // The next policy write makes a fresh, regular file.
        _ = try connection.setConstrained(true, key: "wifi:Fresh")
        var info = stat()
        #expect(lstat(policy, &info) == 0 && info.st_mode & S_IFMT == S_IFREG)
    }
}
