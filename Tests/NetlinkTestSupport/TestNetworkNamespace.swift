// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronization

/// A network namespace of the test's own (`ip netns add`), removed again by `delete()`: the one helper the Netlink
/// tests and the end-to-end tests build their topologies with. Everything a test does to links, addresses and
/// routes happens in here, never on the host's interfaces. The far ends of its veth pairs live in a second
/// namespace, `far`: the network the interfaces attach to, out of the watcher's (or the daemon's) sight.
public final class TestNetworkNamespace: Sendable {
    public let name: String
    public let far: String

    private static let counter = Atomic<Int>(0)

    /// Makes the namespace and its far side, with `lo` up; `prefix` says whose it is in `ip netns list`.
    public init(prefix: String = "pmit") throws {
        let serial = Self.counter.add(1, ordering: .relaxed).newValue
        name = "\(prefix)-\(getpid())-\(serial)"
        far = name + "-far"
        try runCommand(["ip", "netns", "add", name])
        do {
            try runCommand(["ip", "netns", "add", far])
            try ip("link set lo up")
        } catch {
            delete()
            throw error
        }
    }

    /// The path a watcher or writer joins.
    public var path: String { "/var/run/netns/\(name)" }

    /// Runs `ip -n NAME ARGS` (arguments separated by spaces).
    @discardableResult
    public func ip(_ arguments: String) throws -> CommandResult {
        try runCommand(["ip", "-n", name] + arguments.split(separator: " ").map(String.init))
    }

    /// Runs many `ip` commands in one process (`ip -batch -`): a burst of changes as fast as the kernel takes them.
    public func batch(_ commands: [String]) throws {
        try runCommand(["ip", "-n", name, "-batch", "-"], input: commands.joined(separator: "\n") + "\n")
    }

    /// Starts `ip -n NAME -batch FILE` without waiting for it.
    public func startBatch(file: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = ["-n", name, "-batch", file]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// The argument prefix that runs a program inside the namespace (with its own /sys, as pathmond expects).
    public var exec: [String] { ["ip", "netns", "exec", name] }

    /// Runs `ip -n FAR ARGS` on the network side.
    @discardableResult
    public func farIP(_ arguments: String) throws -> CommandResult {
        try runCommand(["ip", "-n", far] + arguments.split(separator: " ").map(String.init))
    }

    /// Makes a veth pair whose peer end sits in the far namespace; carrier follows the peer's state.
    public func addVeth(_ name: String, peer: String, up: Bool = true) throws {
        try ip("link add name \(name) type veth peer name \(peer) netns \(far)")
        if up {
            try farIP("link set \(peer) up")
            try ip("link set \(name) up")
        }
    }

    /// The common starting point: eth0 on 192.0.2.10/24, and with `routed` a default route via 192.0.2.1.
    public func addWiredUplink(routed: Bool) throws {
        try addVeth("eth0", peer: "eth0-peer")
        try ip("address add 192.0.2.10/24 dev eth0")
        if routed { try ip("route add default via 192.0.2.1 dev eth0") }
    }

    /// The interface index of a link in the namespace.
    public func index(of link: String) throws -> Int32 {
        let output = try ip("-o link show dev \(link)").output
        guard let index = output.split(separator: ":").first.flatMap({ Int32($0) }) else {
            throw CommandError(
                command: ["ip", "-n", name, "-o", "link", "show", "dev", link],
                result: CommandResult(status: 0, output: output, errorOutput: "no index"))
        }
        return index
    }

    /// A link's hardware address ("02:…", from `ip -o link show`), in the namespace or, with `far`, on the far side.
    public func hardwareAddress(of link: String, far: Bool = false) throws -> String {
        let show = "-o link show dev \(link)"
        let words = try (far ? farIP(show) : ip(show)).output.split(separator: " ")
        guard let position = words.firstIndex(of: "link/ether"), position + 1 < words.count else {
            throw CommandError(
                command: ["ip", "-n", far ? self.far : name] + show.split(separator: " ").map(String.init),
                result: CommandResult(status: 0, output: words.joined(separator: " "), errorOutput: "no address"))
        }
        return String(words[position + 1])
    }

    public func delete() {
        _ = try? runCommand(["ip", "netns", "del", name], check: false)
        _ = try? runCommand(["ip", "netns", "del", far], check: false)
    }
}

extension TestNetworkNamespace {
    /// A namespace with the veth pair va/vb inside it, both up: a link the kernel brings up and down at once.
    public static func withVethPair(prefix: String = "pmnl") throws -> TestNetworkNamespace {
        let namespace = try TestNetworkNamespace(prefix: prefix)
        do {
            try namespace.ip("link add name va type veth peer name vb")
            try namespace.ip("link set va up")
            try namespace.ip("link set vb up")
        } catch {
            namespace.delete()
            throw error
        }
        return namespace
    }
}

/// Runs `body` with a fresh namespace holding va/vb (`withVethPair`) and deletes it afterwards, whatever happens.
public func withTestNamespace<Result>(_ body: (TestNetworkNamespace) async throws -> Result) async throws -> Result {
    let namespace = try TestNetworkNamespace.withVethPair()
    defer { namespace.delete() }
    return try await body(namespace)
}
