// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// The interface the changes are made on: an addressed veth with `default dev <it>` in the bench's namespace.
struct Topology {
    var index: Int32
    var ipv4: [UInt8]
    var prefixLength: UInt8
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

    /// The i-th change of this kind; toggles alternate removal (even i) and addition (odd i).
    func change(_ i: Int, on topology: Topology) -> Change {
        let removes = i % 2 == 0
        switch self {
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

    /// What puts the path back to satisfied after `count` changes, so the next kind starts from the same place.
    func finishing(after count: Int, on topology: Topology) -> [KernelRequest] {
        guard self != .link, count % 2 == 1 else { return [] }
        return [change(1, on: topology).request]
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
