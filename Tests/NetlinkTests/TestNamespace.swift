// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A network namespace made for one test (`ip netns add pmnl-<random>`) with a veth pair va/vb, both up. Nothing
/// here touches the host's interfaces; `remove()` deletes the namespace and everything in it.
struct TestNamespace: Sendable {
    let name: String

    /// The path a watcher or writer joins.
    var path: String { "/var/run/netns/\(name)" }

    init() throws {
        name = "pmnl-\(UInt32.random(in: 0...UInt32.max))"
        try Self.run(["netns", "add", name])
        do {
            try ip("link", "add", "name", "va", "type", "veth", "peer", "name", "vb")
            try ip("link", "set", "va", "up")
            try ip("link", "set", "vb", "up")
        } catch {
            remove()
            throw error
        }
    }

    func remove() {
        _ = try? Self.run(["netns", "delete", name])
    }

    /// Runs `ip -n NAME ARGS...` and returns its output; throws if it fails.
    @discardableResult
    func ip(_ arguments: String...) throws -> String {
        try Self.run(["-n", name] + arguments)
    }

    /// The interface index of a link in the namespace.
    func index(of link: String) throws -> Int32 {
        let output = try ip("-o", "link", "show", "dev", link)
        guard let index = output.split(separator: ":").first.flatMap({ Int32($0) }) else {
            throw CommandFailure(command: "ip link show \(link)", output: output)
        }
        return index
    }

    /// Starts `ip -n NAME -batch FILE` without waiting for it.
    func startBatch(file: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = ["-n", name, "-batch", file]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CommandFailure(command: "ip " + arguments.joined(separator: " "), output: output)
        }
        return output
    }
}

struct CommandFailure: Error, CustomStringConvertible {
    var command: String
    var output: String
    var description: String { "\(command) failed: \(output)" }
}

/// Runs `body` with a fresh namespace and deletes the namespace afterwards, whatever happens.
func withTestNamespace<Result>(_ body: (TestNamespace) async throws -> Result) async throws -> Result {
    let namespace = try TestNamespace()
    defer { namespace.remove() }
    return try await body(namespace)
}
