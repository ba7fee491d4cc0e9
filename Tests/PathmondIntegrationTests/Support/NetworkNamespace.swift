// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronization

/// A network namespace of the test's own (`ip netns add`), removed again by `delete()`. Everything a test does to
/// links, addresses and routes happens in here, never on the host's interfaces. The far ends of its veth pairs
/// live in a second namespace, `far`: the network the interfaces attach to, out of the daemon's sight.
final class NetworkNamespace: Sendable {
    let name: String
    let far: String

    private static let counter = Atomic<Int>(0)

    init() throws {
        let serial = Self.counter.add(1, ordering: .relaxed).newValue
        name = "pmit-\(getpid())-\(serial)"
        far = name + "-far"
        try runCommand(["ip", "netns", "add", name])
        try runCommand(["ip", "netns", "add", far])
        try ip("link set lo up")
    }

    /// Runs `ip -n NAME ARGS` (arguments separated by spaces).
    @discardableResult
    func ip(_ arguments: String) throws -> CommandResult {
        try runCommand(["ip", "-n", name] + arguments.split(separator: " ").map(String.init))
    }

    /// Runs many `ip` commands in one process (`ip -batch -`): a burst of changes as fast as the kernel takes them.
    func batch(_ commands: [String]) throws {
        try runCommand(["ip", "-n", name, "-batch", "-"], input: commands.joined(separator: "\n") + "\n")
    }

    /// The argument prefix that runs a program inside the namespace (with its own /sys, as pathmond expects).
    var exec: [String] { ["ip", "netns", "exec", name] }

    /// Runs `ip -n FAR ARGS` on the network side.
    @discardableResult
    func farIP(_ arguments: String) throws -> CommandResult {
        try runCommand(["ip", "-n", far] + arguments.split(separator: " ").map(String.init))
    }

    /// Makes a veth pair whose peer end sits in the far namespace; carrier follows the peer's state.
    func addVeth(_ name: String, peer: String, up: Bool = true) throws {
        try ip("link add name \(name) type veth peer name \(peer) netns \(far)")
        if up {
            try farIP("link set \(peer) up")
            try ip("link set \(name) up")
        }
    }

    /// The common starting point: eth0 on 192.0.2.10/24, and with `routed` a default route via 192.0.2.1.
    func addWiredUplink(routed: Bool) throws {
        try addVeth("eth0", peer: "eth0-peer")
        try ip("address add 192.0.2.10/24 dev eth0")
        if routed { try ip("route add default via 192.0.2.1 dev eth0") }
    }

    func delete() {
        _ = try? runCommand(["ip", "netns", "del", name], check: false)
        _ = try? runCommand(["ip", "netns", "del", far], check: false)
    }
}
