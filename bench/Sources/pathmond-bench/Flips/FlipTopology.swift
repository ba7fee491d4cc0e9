// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// What `flips` changes in the bench's namespaces: veth0's default route goes through a gateway (10.77.0.2, veth1 in
/// the peer namespace, so that its neighbour answers), and the namespace gets the extra interfaces of a container host.
enum FlipTopology {
    static let gateway: [UInt8] = [10, 77, 0, 2]
    /// veth1's link-layer address, set before the gateway is resolved: the gateway-neighbour events give it as it is.
    static let gatewayLinkLayer: [UInt8] = [2, 0, 0, 0, 0, 2]
    static let metric: UInt32 = 50
    /// veth0's index in pathmond's namespace (BenchNamespace) and its address.
    static let veth0: Int32 = 10
    static let veth0Address: [UInt8] = [10, 77, 0, 1]

    /// Replaces the namespace's `default dev veth0` with the gateway's route (`withRoute`; without, with nothing:
    /// the route flips add it), gives the peer its address, and adds `extraInterfaces` interfaces (veth pairs, both
    /// ends here, up, each with a /32).
    static func prepare(_ namespace: BenchNamespace, extraInterfaces: Int, withRoute: Bool) throws(BenchError) {
        try Child.run(["ip", "-n", namespace.peer, "addr", "add", "10.77.0.2/24", "dev", "veth1"])
        try Child.run(["ip", "-n", namespace.peer, "link", "set", "veth1", "address", "02:00:00:00:00:02"])
        try namespace.ip("route del default dev veth0")
        if withRoute { try namespace.ip("route add default via 10.77.0.2 dev veth0 metric \(metric)") }
        guard extraInterfaces > 0 else { return }
        var lines: [String] = []
        for pair in 0..<((extraInterfaces + 1) / 2) {
            let net = "10.\(100 + pair / 250).\(pair % 250)"
            lines += [
                "link add bv\(pair)-a type veth peer name bv\(pair)-b", "address add \(net).1/32 dev bv\(pair)-a",
                "address add \(net).2/32 dev bv\(pair)-b", "link set bv\(pair)-a up", "link set bv\(pair)-b up",
            ]
        }
        let path = "/tmp/pathmond-bench-\(getpid())-interfaces"
        guard let file = fopen(path, "w") else { throw .system("fopen(\(path))", errno) }
        fputs(lines.joined(separator: "\n") + "\n", file)
        fclose(file)
        defer { unlink(path) }
        try Child.run(["ip", "-n", namespace.name, "-batch", path])
    }

    /// The `index`th event of `kind` (from 0): a route added first, the link taken down first, REACHABLE first.
    static func request(_ kind: Flips.Kind, _ index: Int) -> KernelRequest {
        let state = index % 2 == 0 ? RTNetlink.neighbourReachable : RTNetlink.neighbourStale
        return switch kind {
        case .route: gatewayRoute(add: index % 2 == 0)
        case .link: .setLink(index: 20, up: index % 2 == 1)
        case .hostNeighbour:
            .neighbour(index: veth0, ipv4: [10, 77, 0, 9], linkLayer: [2, 0, 0, 0, 0, 9], state: state)
        case .gatewayNeighbour: .neighbour(index: veth0, ipv4: gateway, linkLayer: gatewayLinkLayer, state: state)
        case .renewal:
            // A lease of an hour renewed: each renewal a second shorter, so that the kernel has news to announce.
            .renewal(
                index: veth0, ipv4: veth0Address, prefixLength: 24, valid: 3600 - UInt32(index),
                preferred: 1800 - UInt32(index))
        }
    }

    /// `default via 10.77.0.2 dev veth0 metric 50`, added or deleted.
    static func gatewayRoute(add: Bool) -> KernelRequest {
        .defaultRoute(add: add, index: 10, metric: metric, gateway: gateway)
    }
}
