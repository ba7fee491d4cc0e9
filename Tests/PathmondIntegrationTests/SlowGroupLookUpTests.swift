// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PathMonitor
import Testing

/// Issue 25: a look-up that waits holds nothing else up. A policy change by a user other than root asks the user
/// database for the admin group (NSS: files here, LDAP or SSSD on a fleet). In the daemon's own mount namespace
/// `/etc/nsswitch.conf` becomes a FIFO: glibc sees the file changed and reads it again before the look-up, and
/// blocks in open(2) until the test writes the file into it, as a directory server that stopped answering would.
/// (`/etc/group` itself cannot be a FIFO: glibc seeks it, and a FIFO refuses.) Meanwhile GetPath is answered and a subscriber hears a route
/// change; then the look-up completes and the change lands. When policy changes ran on the loop that answers
/// calls, GetPath waited behind the look-up.
@Suite(.serialized) struct SlowGroupLookUpTests {
    @Test func aStalledGroupLookUpLeavesCallsAndStreamsOnTime() async throws {
        let scenario = try SmallFaultTests.scenario(configuration: "[policy]\nadmin-group = adm\n")
        defer { #expect(scenario.tearDown() == 0) }
        let socket = scenario.daemon.socketPath
        let subscriber = try RawClient(socketPath: socket)
        try subscriber.send(Array(#"{"method":"io.pathmond.WatchPath","more":true}"#.utf8) + [0])
        let first = try #require(try subscriber.receive(timeout: .seconds(5)), "the subscriber's first path")
        #expect((first["parameters"] as? [String: Any]) != nil, "\(first)")

        // `ip netns exec` gave the daemon a mount namespace of its own: the FIFO is seen there only.
        let processID = try #require(scenario.daemon.processID)
        let fifo = "/tmp/pathmond-nsswitch-\(processID).fifo"
        unlink(fifo)
        #expect(mkfifo(fifo, 0o644) == 0)
        defer {
            // A look-up still waiting is let go (an empty nsswitch.conf), so the daemon can stop whatever failed.
            let writer = open(fifo, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }
            unlink(fifo)
        }
        try runCommand(["nsenter", "-t", "\(processID)", "-m", "mount", "--bind", fifo, "/etc/nsswitch.conf"])

        let change = Process()
        change.executableURL = URL(filePath: "/usr/bin/setpriv")
        change.arguments = [
            "--reuid=65534", "--regid=65534", "--groups=4", product("pathctl"), "set-constrained", "--key",
            "wifi:Stalled", "--socket", socket,
        ]
        change.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        change.standardError = errors
        try change.run()
        defer { if change.isRunning { change.terminate() } }
        try await eventually("the policy loop waits in the group look-up") {
            try Self.policyThreadWaitsInOpen(processID: processID)
        }

        // While it waits: a call is answered, and a kernel change reaches the subscriber.
        let path = try PathmondConnection(socketPath: socket).path()
        #expect(path.status == .satisfied, "\(path)")
        try scenario.namespace.ip("route del default via 192.0.2.1 dev eth0")
        let update = try #require(try subscriber.receive(timeout: .seconds(5)), "the route change while NSS waits")
        let status = (update["parameters"] as? [String: Any]).flatMap { $0["path"] as? [String: Any] }?["status"]
        #expect(status as? String == "unsatisfied", "\(update)")
        #expect(change.isRunning, "the policy change was not held by the look-up: the test proves nothing")

        // The directory answers: the change lands (nobody is given group adm, so it is allowed).
        let configuration = try String(contentsOfFile: "/etc/nsswitch.conf", encoding: .utf8)
        let writer = open(fifo, O_WRONLY)
        #expect(writer >= 0)
        _ = configuration.utf8CString.withUnsafeBufferPointer { write(writer, $0.baseAddress, $0.count - 1) }
        close(writer)
        change.waitUntilExit()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(change.terminationStatus == 0, "\(said)")
        let networks = try PathmondConnection(socketPath: socket).networks()
        #expect(networks.contains { $0.key == "wifi:Stalled" && $0.constrained == true }, "\(networks)")
    }

    /// Whether the daemon's policy thread sleeps opening a FIFO: the kernel's wait channel for that is
    /// `wait_for_partner` (a FIFO's open waits for a writer).
    private static func policyThreadWaitsInOpen(processID: Int32) throws -> Bool {
        let tasks = "/proc/\(processID)/task"
        for thread in try FileManager.default.contentsOfDirectory(atPath: tasks) {
            let name = (try? String(contentsOfFile: "\(tasks)/\(thread)/comm", encoding: .utf8)) ?? ""
            guard name.hasPrefix("pathmond-policy") else { continue }
            let channel = (try? String(contentsOfFile: "\(tasks)/\(thread)/wchan", encoding: .utf8)) ?? ""
            return channel.hasPrefix("wait_for_partner")
        }
        return false
    }
}
