// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// The interface the changes are made on: an addressed veth with `default dev <it>` in the bench's namespace.
struct Topology {
    var index: Int32
    var ipv4: [UInt8]
    var prefixLength: UInt8
    /// The second uplink the `uplink` kind makes and removes; nil where it cannot be made (no peer namespace).
    var second: SecondUplink?
}

/// One timed change: the request, what each observer must see, and the untimed steps that undo it.
struct Change {
    var request: KernelRequest
    var raw: RawMatch
    var path: PathMatch
    /// Run after the observation and before the next change; empty for toggles, whose next change undoes this one.
    var restore: [KernelRequest] = []
}

/// The kinds of kernel change measured. Each change flips the path, so the subscriber sees exactly one update.
enum ChangeKind: String, CaseIterable, Codable, Sendable, ExpressibleByArgument {
    /// `default dev veth0` deleted and re-added: satisfied ↔ unsatisfied(noDefaultRoute).
    case route
    /// The global IPv4 address deleted and re-added: satisfied ↔ unsatisfied(noAddress). A link-scope anchor
    /// address stays on the interface, because deleting a device's last IPv4 address makes the kernel flush its
    /// IPv4 routes, the default route included, without a notification; the anchor is not usable, so the path
    /// still flips.
    case address
    /// Administrative down (timed): satisfied → unsatisfied(interfacesDown). Restored untimed: up, then the
    /// default route again, which the kernel flushed silently on down.
    case link
    /// A second uplink's default route (through a gateway, as a real uplink's is: the gateway's neighbour is
    /// resolved and followed) added / deleted at a lower metric than the first's (timed): the path stays
    /// satisfied and its first interface flips between veth2 and veth0. Before the first change the second uplink
    /// is brought up with an address and the first's default route moves to a higher metric; afterwards, undone.
    case uplink

    /// The i-th change of this kind; toggles alternate removal (even i) and addition (odd i), except `uplink`, whose
    /// route starts absent: addition (even i) and removal (odd i).
    func change(_ i: Int, on topology: Topology) -> Change {
        let removes = i % 2 == 0
        switch self {
        case .uplink:
            let second = topology.second!
            return Change(
                request: .defaultRoute(
                    add: removes, index: second.index, metric: SecondUplink.secondMetric, gateway: second.gateway),
                raw: .defaultRoute(added: removes),
                path: .satisfied(via: removes ? second.index : topology.index))
        case .route:
            return Change(
                request: .defaultRoute(add: !removes, index: topology.index),
                raw: .defaultRoute(added: !removes),
                path: removes ? .unsatisfied(.noDefaultRoute) : .satisfied)
        case .address:
            return Change(
                request: .address(
                    add: !removes, index: topology.index, ipv4: topology.ipv4, prefixLength: topology.prefixLength),
                raw: .address(added: !removes, index: topology.index),
                path: removes ? .unsatisfied(.noAddress) : .satisfied)
        case .link:
            return Change(
                request: .setLink(index: topology.index, up: false),
                raw: .link(index: topology.index, up: false),
                path: .unsatisfied(.interfacesDown),
                restore: [.setLink(index: topology.index, up: true), .defaultRoute(add: true, index: topology.index)])
        }
    }

    /// What sets the stage before the first change (untimed), and the path it leads to.
    func preparing(on topology: Topology) -> [KernelRequest] {
        guard self == .uplink, let second = topology.second else { return [] }
        return [
            .setLink(index: second.index, up: true),
            .address(add: true, index: second.index, ipv4: second.ipv4, prefixLength: second.prefixLength),
            .defaultRoute(add: true, index: topology.index, metric: SecondUplink.firstMetric),
            .defaultRoute(add: false, index: topology.index),  // the lower metric: the original, at 0
        ]
    }

    /// The path before the first change and after `finishing`.
    func settled(on topology: Topology) -> PathMatch {
        self == .uplink ? .satisfied(via: topology.index) : .satisfied
    }

    /// What puts the path back to satisfied after `count` changes, so the next kind starts from the same place.
    func finishing(after count: Int, on topology: Topology) -> [KernelRequest] {
        switch self {
        case .link: return []
        case .route, .address: return count % 2 == 1 ? [change(1, on: topology).request] : []
        case .uplink:
            guard let second = topology.second else { return [] }
            return (count % 2 == 1 ? [change(1, on: topology).request] : []) + [
                .defaultRoute(add: true, index: topology.index),
                .defaultRoute(add: false, index: topology.index, metric: SecondUplink.firstMetric),
                .address(add: false, index: second.index, ipv4: second.ipv4, prefixLength: second.prefixLength),
                .setLink(index: second.index, up: false),
            ]
        }
    }
}

/// A comma-separated list of kinds on the command line: `--kinds route,address`.
struct ChangeKinds: ExpressibleByArgument {
    var kinds: [ChangeKind]

    init(_ kinds: [ChangeKind]) {
        self.kinds = kinds
    }

    init?(argument: String) {
        var kinds: [ChangeKind] = []
        for name in argument.split(separator: ",") {
            guard let kind = ChangeKind(rawValue: String(name)) else { return nil }
            if !kinds.contains(kind) { kinds.append(kind) }
        }
        guard !kinds.isEmpty else { return nil }
        self.kinds = kinds
    }

    var defaultValueDescription: String { kinds.map(\.rawValue).joined(separator: ",") }
}
