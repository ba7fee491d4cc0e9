/// Judges a flow against the interfaces as they stand: pure, re-run on every change.
public enum FlowEvaluator {
    /// The flow's viability and whether a better path exists.
    ///
    /// - Viable: its interface exists, is up and running, still holds the local address (past DAD), and can reach
    ///   the remote: a default route of that family out of the interface, or the remote on one of its subnets.
    ///   Without a remote, a default route of the local address's family will do, and so does a link-local
    ///   address on a running link.
    /// - Better path: the path for the flow's parameters is satisfied and its preferred interface is another one
    ///   that ranks above the flow's (any usable interface, when the flow's own is not viable).
    public static func status(
        of flow: Flow, interfaces: [InterfaceStatus], pathForParameters path: Path
    ) -> FlowStatus {
        let own = interfaces.first { $0.link.name == flow.interfaceName }
        let isViable = own.map { viable(flow, on: $0) } ?? false
        guard path.status == .satisfied, let preferred = path.availableInterfaces.first,
            preferred.name != flow.interfaceName
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

    static func viable(_ flow: Flow, on interface: InterfaceStatus) -> Bool {
        guard interface.link.isRunning else { return false }
        let family = flow.localAddress.family
        guard interface.addresses.contains(where: { $0.address == flow.localAddress && !$0.isTentative }) else {
            return false
        }
        let hasDefaultRoute = interface.routes.contains { $0.family == family }
        guard let remote = flow.remoteAddress else {
            return hasDefaultRoute || flow.localAddress.isLinkLocal
        }
        guard remote.family == family else { return false }
        return hasDefaultRoute || interface.addresses.contains { $0.family == family && $0.contains(remote) }
    }
}

extension InterfaceAddress {
    /// Whether `other` lies in this address's on-link subnet.
    func contains(_ other: IPAddress) -> Bool {
        guard other.family == family else { return false }
        var remaining = Int(prefixLength)
        for (mine, theirs) in zip(address.bytes, other.bytes) {
            guard remaining > 0 else { return true }
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xff << (8 - bits))
            if mine & mask != theirs & mask { return false }
            remaining -= bits
        }
        return true
    }
}
