// SPDX-License-Identifier: Apache-2.0
/// Judges a flow against the interfaces as they stand: pure, re-run on every change.
public enum FlowEvaluator {
    /// The flow's viability and whether a better path exists.
    ///
    /// - Viable: its interface exists, is up and running, still holds the local address (past DAD), and the
    ///   kernel sends the flow's packets (to the remote, from the local address; out of its interface when the
    ///   socket is bound to it, which the kernel answers with that interface's routes) out of that interface. The
    ///   kernel's own decision settles it once asked: out of the flow's interface is viable (a specific route
    ///   counts); out of another interface (a route with a lower metric came) or nowhere (no route, a blocking
    ///   route or rule) is not. Until the kernel's answer arrives (and without a remote, when there is nothing to
    ///   ask): a default route of that family out of the interface, or the remote on one of its subnets; without
    ///   a remote, a default route of the local address's family will do, and so does a link-local address on a
    ///   running link.
    /// - Better path: the path for the flow's parameters is satisfied and prefers another interface: the one the
    ///   kernel would send a new connection to the remote through, when the parameters allow it, else the path's
    ///   first (any usable interface, when the flow's own is not viable).
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
        let own = interfaces.firstIndex { $0.link.name == flow.interfaceName }
        let isViable =
            own.map { viable(flow, current: queries?.current, on: interfaces, at: $0, decisions: decisions) } ?? false
        // Where the kernel would send a new connection to the remote: the flow's own interface (a specific route,
        // a split tunnel) means nothing is better; another one the parameters allow is the better path.
        let kernelChoice = queries.flatMap { decisions[$0.newConnection]?.interfaceIndex }
        let ownIsKernelChoice = own.map { kernelChoice == interfaces[$0].link.index } ?? false
        let allowedKernelChoice = kernelChoice.flatMap { index in path.availableInterfaces.first { $0.index == index } }
        guard path.status == .satisfied, !ownIsKernelChoice || !isViable,
            let preferred = allowedKernelChoice ?? path.availableInterfaces.first, preferred.name != flow.interfaceName
        else {
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

    /// `current`: the flow's `currentRouteQuery`; `position`: the flow's interface among `interfaces` (read in
    /// place: passed by value, its status was copied for each flow, a dozen retains and releases).
    static func viable(
        _ flow: Flow, current: RouteQuery?, on interfaces: [InterfaceStatus], at position: Int,
        decisions: [RouteQuery: RouteDecision]
    ) -> Bool {
        guard interfaces[position].link.isRunning else { return false }
        let family = flow.localAddress.family
        let addresses = interfaces[position].addresses
        guard addresses.contains(where: { $0.address == flow.localAddress && !$0.isTentative }) else {
            return false
        }
        switch current.flatMap({ decisions[$0] }) {
        case .via(let index, _): return index == interfaces[position].link.index
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
