// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PathModel

#if canImport(Glibc)
    import Glibc
#endif

/// `pathmond-bench latency` (the default subcommand): kernel change → raw NETLINK_ROUTE listener vs pathmond
/// subscriber, side by side, in one run. Run it through `bench/latency`, which builds the namespace, the veth and the
/// daemon it expects.
struct Latency: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latency",
        abstract: "Latency from a link, address or route change to a raw netlink listener and to a pathmond client.",
        discussion: """
            Makes the changes itself, through netlink, on an interface that must already be up with the given \
            IPv4 address and a `default dev` route, and with pathmond serving --socket in the same network \
            namespace. Never asserts on time: it prints figures. bench/latency sets all of this up.
            """
    )

    @Option(help: "The pathmond socket to subscribe to.")
    var socket: String

    @Option(help: "The interface to change (in the current network namespace).")
    var interface = "veth0"

    @Option(help: "The global IPv4 address on the interface, with its prefix length.")
    var address = "10.77.0.1/24"

    @Option(help: "The namespace the `uplink` kind puts its second uplink's peer in (bench/latency passes its own).")
    var peerNamespace: String?

    @Option(help: "The IPv4 address the `uplink` kind gives the second uplink, with its prefix length.")
    var secondAddress = "10.78.0.1/24"

    @Option(name: [.customShort("n"), .long], help: "Measured changes per kind.")
    var count = 200

    @Option(
        help: ArgumentHelp(
            "The kinds of change to measure, comma-separated: route, address, link, uplink.",
            discussion: "Default: all four with --peer-namespace (uplink needs it), else the first three."))
    var kinds: ChangeKinds?

    @Option(help: "Unmeasured changes per kind before the measured ones.")
    var warmup = 6

    @Option(name: .customLong("timeout-ms"), help: "How long to wait for each observer before counting a miss.")
    var timeoutMilliseconds = 1000

    @Option(
        name: .customLong("pause-us"),
        help: """
            Quiet time before each change, in microseconds (default 20 ms: each change isolated, as a host's are; \
            0: back to back).
            """)
    var pauseMicroseconds: UInt32 = 20000

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    func validate() throws {
        guard count > 0 else { throw ValidationError("--count must be at least 1.") }
        guard warmup >= 0 else { throw ValidationError("--warmup cannot be negative.") }
        guard timeoutMilliseconds > 0 else { throw ValidationError("--timeout-ms must be positive.") }
        if kinds?.kinds.contains(.uplink) == true && peerNamespace == nil {
            throw ValidationError("the uplink kind needs --peer-namespace (bench/latency passes it).")
        }
        guard parseIPv4Prefix(address) != nil, parseIPv4Prefix(secondAddress) != nil else {
            throw ValidationError(
                "--address and --second-address must be IPv4 addresses with a prefix length, like 10.77.0.1/24.")
        }
    }

    func run() throws {
        guard let (ipv4, prefixLength) = parseIPv4Prefix(address) else { throw ValidationError("bad --address") }
        let index = Int32(bitPattern: if_nametoindex(interface))
        guard index > 0 else { throw ValidationError("no interface named \(interface) in this network namespace.") }
        var topology = Topology(index: index, ipv4: ipv4, prefixLength: prefixLength)
        if let peerNamespace, let (ipv4, prefixLength) = parseIPv4Prefix(secondAddress) {
            // No namespace name: this process runs inside the bench's namespace, where `ip` acts by default.
            topology.second = SecondUplink(
                namespace: nil, peerNamespace: peerNamespace, ipv4: ipv4, prefixLength: prefixLength)
        }
        let kinds = kinds?.kinds ?? (peerNamespace == nil ? [.route, .address, .link] : ChangeKind.allCases)

        let probe = Probe()
        let runner = Runner(
            writer: try RequestWriter(), probe: probe, topology: topology, warmup: warmup, count: count,
            timeoutNanoseconds: UInt64(timeoutMilliseconds) * 1_000_000, pauseMicroseconds: pauseMicroseconds)
        let report = try runner.report(kinds, listener: try RawListener(probe: probe), socketPath: socket)
        print(json ? try report.json() : report.table())
    }
}

/// `10.77.0.1/24` as its four bytes and prefix length; nil unless IPv4 with a prefix of 1-32.
func parseIPv4Prefix(_ text: String) -> ([UInt8], UInt8)? {
    let parts = text.split(separator: "/")
    guard parts.count == 2, let ip = IPAddress(String(parts[0])), ip.family == .ipv4,
        let prefixLength = UInt8(parts[1]), (1...32).contains(prefixLength)
    else { return nil }
    return (Array(ip.bytes), prefixLength)
}
