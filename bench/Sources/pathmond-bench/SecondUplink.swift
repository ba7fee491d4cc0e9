// SPDX-License-Identifier: Apache-2.0
/// The `uplink` kind's second uplink: veth2 (ifindex 12) in the bench's namespace, its peer veth3 (22) up in the peer
/// namespace. It exists only while that kind runs, so that the other kinds measure one uplink: even down and
/// unaddressed, a second interface changed what pathmond reported for them (measured: the link kind's down passed
/// through unsatisfied(noDefaultRoute) before interfacesDown in about 2 of 100 changes, against rarely without it).
struct SecondUplink {
    /// The bench's namespace for `ip -n`; nil: the one this process is in (bench/latency runs the bench inside it).
    var namespace: String?
    var peerNamespace: String
    var ipv4: [UInt8]
    var prefixLength: UInt8
    let index: Int32 = 12

    /// The first uplink's default route while the second one's comes and goes: above the second's, so that adding
    /// the second's moves the path's first interface (a default route at metric 0 could not be beaten).
    static let firstMetric: UInt32 = 100
    static let secondMetric: UInt32 = 50

    /// Makes veth2, down, with no IPv6 link-local address (addrgenmode none: no address appears, and no DAD
    /// finishes, in the middle of the timed changes); the kind brings it up and addresses it through netlink.
    func create() throws(BenchError) {
        try ip("link add veth2 index 12 type veth peer name veth3 index 22 netns \(peerNamespace)")
        try ip("link set veth2 addrgenmode none")
        try Child.run(["ip", "-n", peerNamespace, "link", "set", "veth3", "up"])
        let peerAddress = gateway.map(String.init).joined(separator: ".") + "/\(prefixLength)"
        try Child.run(["ip", "-n", peerNamespace, "address", "add", peerAddress, "dev", "veth3"])
    }

    /// The second uplink's gateway: veth3's address in the peer namespace (the host part 2 of veth2's network).
    var gateway: [UInt8] { [ipv4[0], ipv4[1], ipv4[2], 2] }

    /// Deletes veth2 (and with it veth3).
    func delete() throws(BenchError) {
        try ip("link del veth2")
    }

    private func ip(_ arguments: String) throws(BenchError) {
        let words = arguments.split(separator: " ").map(String.init)
        try Child.run(["ip"] + (namespace.map { ["-n", $0] } ?? []) + words)
    }
}
