// SPDX-License-Identifier: Apache-2.0
/// Judges a flow against the interfaces as they stand: pure, re-run on every change.
public enum FlowEvaluator {
    /// The flow's viability and whether a better path exists.
    ///
    /// The flow's interface is the one with its index (`Flow.interfaceIndex`): a rename keeps it, and replies carry
    /// the current name. By name only while the index names no interface.
    /// - Viable: its interface exists, is up and running, still holds the local address (past DAD), and the
    ///   kernel sends the flow's packets (to the remote, from the local address; out of its interface when the
    ///   socket is bound to it, which the kernel answers with that interface's routes) out of that interface. The
    ///   kernel's own decision settles it once asked: out of the flow's interface is viable (a specific route
    ///   counts); out of another interface (a route with a lower metric came) or nowhere (no route, a blocking
    ///   route or rule) is not. A bound IPv6 flow is viable when either of its two answers is its interface
    ///   (`Flow.boundRouteQuery`). Until the kernel's answer arrives (and without a remote, when there is nothing
    ///   to ask): a default route of that family out of the interface, or the remote on one of its subnets; without
    ///   a remote, a default route of the local address's family will do, and so does a link-local address on a
    ///   running link.
    /// - Better path: the interface the kernel would send a new connection to the remote through, whatever it is
    ///   (a split tunnel's for its subnets, though the path for the internet does not list it), when it is another
    ///   than the flow's own (or the flow is not viable), can carry the remote's family and the parameters allow it.
    ///   Else, when the path for the flow's parameters is satisfied and prefers another interface, the path's first
    ///   (any usable interface, when the flow's own is not viable).
    public static func status(
        of flow: Flow, interfaces: [InterfaceStatus], pathForParameters path: Path,
        decisions: [RouteQuery: RouteDecision] = [:]
    ) -> FlowStatus {
        status(
            of: flow, queries: flow.routeQueryPair, interfaces: interfaces, pathForParameters: path,
            decisions: decisions)
    }

    /// The same, with the flow's route queries as made once beforehand (`Flow.routeQueryPair`).
    public static func status(
        of flow: Flow, queries: FlowRouteQueries?, interfaces: [InterfaceStatus], pathForParameters path: Path,
        decisions: [RouteQuery: RouteDecision]
    ) -> FlowStatus {
        // By position: a thousand flows are judged per change, and a copy of the status is a dozen retains.
        let own = position(of: flow, in: interfaces)
        let ownIndex = own.map { interfaces[$0].link.index }
        let isViable = own.map { viable(flow, queries: queries, on: interfaces, at: $0, decisions: decisions) } ?? false
        // Where the kernel would send a new connection to the remote: the flow's own interface (a specific route,
        // a split tunnel) means nothing is better while the flow is viable; another one that can carry the remote
        // and that the parameters allow is the better path, in the path for the internet or not (a split tunnel's
        // interface routes only its subnets, and the path lists only interfaces that route the internet).
        let kernelChoice = queries.flatMap { decisions[$0.newConnection]?.interfaceIndex }
        if let kernelChoice, kernelChoice == ownIndex, isViable {
            return FlowStatus(isViable: isViable, betterPathAvailable: false)
        }
        let preferred: (index: Int32, name: String)
        if let kernelChoice, kernelChoice != ownIndex,
            let chosen = interfaces.firstIndex(where: { $0.link.index == kernelChoice }),
            canCarry(flow, on: interfaces[chosen])
        {
            preferred = (kernelChoice, interfaces[chosen].link.name)
        } else if path.status == .satisfied, let first = path.availableInterfaces.first, first.index != ownIndex {
            preferred = (first.index, first.name)
        } else {
            return FlowStatus(isViable: isViable, betterPathAvailable: false)
        }
        // The flow's interface still allowed and usable but ranked lower (say Wi-Fi back while on cellular), or
        // not in the path at all (its interface is gone, prohibited, or down): either way another is better.
        let families = flow.parameters.family.families
        let addresses =
            interfaces.first { $0.link.index == preferred.index }?.addresses
            .filter { $0.isUsable && families.contains($0.family) }.map(\.address) ?? []
        return FlowStatus(
            isViable: isViable, betterPathAvailable: true, betterInterface: preferred.name,
            betterInterfaceAddresses: addresses)
    }

    /// The flow's interface among `interfaces`: the one with its index, else (index unknown, or the interface with
    /// it gone) the one with its name.
    static func position(of flow: Flow, in interfaces: [InterfaceStatus]) -> Int? {
        if let index = flow.interfaceIndex, let found = interfaces.firstIndex(where: { $0.link.index == index }) {
            return found
        }
        return interfaces.firstIndex { $0.link.name == flow.interfaceName }
    }

    /// Whether a new connection to the flow's remote could use `status`'s interface: not loopback, running, with a
    /// usable address of the remote's family, and allowed by the flow's parameters.
    static func canCarry(_ flow: Flow, on status: InterfaceStatus) -> Bool {
        let family = flow.remoteAddress?.family ?? flow.localAddress.family
        return status.interfaceClass.kind != .loopback && status.link.isRunning
            && flow.parameters.family.families.contains(family)
            && status.addresses.contains { $0.family == family && $0.isUsable }
            && PathEvaluator.allows(status, flow.parameters)
    }

    /// `queries`: the flow's (`Flow.routeQueryPair`); `position`: the flow's interface among `interfaces` (read in
    /// place: passed by value, its status was copied for each flow, a dozen retains and releases).
    static func viable(
        _ flow: Flow, queries: FlowRouteQueries?, on interfaces: [InterfaceStatus], at position: Int,
        decisions: [RouteQuery: RouteDecision]
    ) -> Bool {
        guard interfaces[position].link.isRunning else { return false }
        let family = flow.localAddress.family
        let addresses = interfaces[position].addresses
        guard addresses.contains(where: { $0.address == flow.localAddress && !$0.isTentative }) else {
            return false
        }
        let index = interfaces[position].link.index
        let current = queries.flatMap { decisions[$0.current] }
        // A bound IPv6 socket: its interface by either answer (the one with the source treats the interface as a
        // preference, the one without applies no source rule).
        if current?.interfaceIndex != index, let bound = queries?.bound, let strict = decisions[bound] {
            return strict.interfaceIndex == index
        }
        switch current {
        case .via(let via, _): return via == index
        case .unroutable: return false
        case nil: break
        }
        let hasDefaultRoute = interfaces[position].routes.contains { $0.family == family }
        guard let remote = flow.remoteAddress else {
            return hasDefaultRoute || flow.localAddress.isLinkLocal
        }
        guard remote.family == family else { return false }
        return hasDefaultRoute || addresses.contains { $0.family == family && $0.contains(remote) }
    }
}

extension InterfaceAddress {
    /// Whether `other` lies in this address's on-link subnet.
    func contains(_ other: IPAddress) -> Bool {
        other.hasPrefix(address, length: Int(prefixLength))
    }
}
