/// The kernel's own routing decision for traffic to the internet, per family, as the state's route decisions
/// hold it, checked against the interfaces it names.
struct KernelChoice {
    /// Per family: absent when the kernel was not asked (or named a link the state does not know yet: the answer
    /// is newer than the events, and the next batch brings both together); nil inside when the next packet goes
    /// nowhere: no route, a blocking route, or an interface that cannot carry it (no carrier, no usable address).
    var picks: [AddressFamily: Int32?] = [:]
    /// The next hop of each usable pick.
    var gateways: [AddressFamily: IPAddress] = [:]

    init(_ state: KernelState) {
        for family in AddressFamily.allCases {
            switch state.decisions[.internet(family)] {
            case nil:
                continue
            case .unroutable:
                picks[family] = .some(nil)
            case .via(let index, let gateway):
                guard let link = state.links[index] else { continue }
                let usable =
                    link.isRunning && state.addresses(of: index).contains { $0.family == family && $0.isUsable }
                picks[family] = .some(usable ? index : nil)
                if usable, let gateway { gateways[family] = gateway }
            }
        }
    }

    /// The families a link routes once the kernel's choice is taken into account: a family the kernel sends
    /// nowhere is routed by no interface; the kernel's pick routes its family whatever the model of its routes
    /// says (a rule, a specific route or a nexthop object may be what takes it there).
    func routedFamilies(
        of index: Int32, modelled: Set<AddressFamily>, addressed: Set<AddressFamily>
    ) -> (routed: Set<AddressFamily>, preferred: Set<AddressFamily>) {
        var routed = modelled
        var preferred: Set<AddressFamily> = []
        for (family, pick) in picks {
            guard let pick else {
                routed.remove(family)
                continue
            }
            if pick == index && addressed.contains(family) {
                routed.insert(family)
                preferred.insert(family)
            }
        }
        return (routed, preferred)
    }
}
