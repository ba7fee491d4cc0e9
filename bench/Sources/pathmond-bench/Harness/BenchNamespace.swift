// SPDX-License-Identifier: Apache-2.0
import CBenchSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The topology every namespaced bench runs in, as bench/latency builds it (see bench/README.md): `veth0` (ifindex
/// 10) with 169.254.77.1/16 (a link-scope anchor), 10.77.0.1/24 and `default dev veth0` in the namespace
/// `pathmond-bench-PID`; its peer `veth1` (ifindex 20) alone in `pathmond-bench-PID-peer`. Never the host's interfaces.
final class BenchNamespace {
    let name: String
    let peer: String
    let interfaceIndex: Int32 = 10
    /// veth1, alone in `peer`: a namespace pathmond does not watch (fan-out's raw reference changes routes there).
    let peerInterfaceIndex: Int32 = 20
    let interface = "veth0"
    let ipv4: [UInt8] = [10, 77, 0, 1]
    let prefixLength: UInt8 = 24
    init() throws(BenchError) {
        name = "pathmond-bench-\(getpid())"
        peer = name + "-peer"
        try Child.run(["ip", "netns", "add", name])
        do {
            try Child.run(["ip", "netns", "add", peer])
            try ip("link set lo up")
            try ip("link add veth0 index 10 type veth peer name veth1 index 20 netns \(peer)")
            try Child.run(["ip", "-n", peer, "link", "set", "veth1", "up"])
            try ip("addr add 169.254.77.1/16 scope link dev veth0")
            try ip("addr add 10.77.0.1/24 dev veth0")
            try ip("link set veth0 up")
            try ip("route add default dev veth0")
        } catch {
            delete()
            throw error
        }
    }

    /// The topology latency's changes are made on; the `uplink` kind makes its second uplink in these namespaces.
    var topology: Topology {
        Topology(
            index: interfaceIndex, ipv4: ipv4, prefixLength: prefixLength,
            second: SecondUplink(namespace: name, peerNamespace: peer, ipv4: [10, 78, 0, 1], prefixLength: 24))
    }

    /// `ip -n NAME ARGUMENTS` (split on spaces).
    func ip(_ arguments: String) throws(BenchError) {
        try Child.run(["ip", "-n", name] + arguments.split(separator: " ").map(String.init))
    }

    /// The prefix that runs a program inside (`ip netns exec` also mounts the namespace's /sys, which pathmond reads).
    var exec: [String] { ["ip", "netns", "exec", name] }

    /// Runs `body` with the calling thread in the namespace (or in `peer`): sockets it opens (netlink) stay there for
    /// good. setns(CLONE_NEWNET) moves only the calling thread, and the thread is moved back before this returns.
    func entered<Result>(peer: Bool = false, _ body: () throws(BenchError) -> Result) throws(BenchError) -> Result {
        let name = peer ? self.peer : self.name
        let original = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)
        let target = open("/run/netns/\(name)", O_RDONLY | O_CLOEXEC)
        defer {
            close(original)
            close(target)
        }
        guard original >= 0, target >= 0 else { throw .system("open(network namespace)", errno) }
        guard setns(target, bench_clone_newnet) == 0 else { throw .system("setns(\(name))", errno) }
        defer { precondition(setns(original, bench_clone_newnet) == 0, "could not return to the original namespace") }
        return try body()
    }

    func delete() {
        _ = try? Child.run(["ip", "netns", "del", name])
        _ = try? Child.run(["ip", "netns", "del", peer])
    }
}

/// A scratch directory anyone may enter (the denial-of-service bench's `nobody` must reach the socket in it).
func makeWorkDirectory() throws(BenchError) -> String {
    var template = Array("/tmp/pathmond-bench.XXXXXX".utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
        throw .system("mkdtemp", errno)
    }
    let path = String(cString: made)
    chmod(path, 0o755)
    return path
}

/// Raises the soft open-file limit to the hard one: a thousand subscribers need a descriptor each.
func raiseOpenFileLimit() -> Int {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = limit.rlim_max
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    return Int(limit.rlim_cur)
}
