// SPDX-License-Identifier: Apache-2.0
/// The kernel's own routing decision for traffic to the internet, per family, as the state's route decisions
/// hold it, checked against the interfaces it names.
///
/// The internet is several probe addresses (`RouteQuery.internetProbes`). Each answer counts as a vote for where
/// the family's traffic goes: a usable interface, or nowhere (no route, a blocking route or rule, an interface that
/// cannot carry the packet). The outcome with the most votes is the kernel's choice; a tie goes to the outcome of
/// the earliest probe (1.1.1.1, 2606:4700:4700::1111). So a route, rule or address that bends one probe (a host
/// route for 1.1.1.1, `blackhole 1.0.0.0/8`) changes nothing, and one that takes half the space (a split default's
/// half) leads when it takes 1.1.1.1's half.
struct KernelChoice: Equatable {
    /// Per family: absent when the kernel was not asked (or named a link the state does not know yet: the answer
    /// is newer than the events, and the next batch brings both together); nil inside when the next packet goes
    /// nowhere: no route, a blocking route, or an interface that cannot carry it (no carrier, no usable address).
    var picks = PerFamily<Int32??>(nil)
    /// The next hop of each usable pick.
    var nextHops = PerFamily<IPAddress?>(nil)

    /// The choice for `user`'s packets. A user whose probes were not asked (yet) gets the system's.
    init(_ state: KernelState, user: UInt32 = RouteQuery.systemUser) {
        // Runs on every change, for the system and for each user watched: each probe's answer is looked up once,
        // only the picked link's own addresses are looked at, in place, and the outcomes are counted on the stack.
        let decisions = state.decisions
        for family in AddressFamily.allCases {
            var probes = RouteQuery.internetProbes(family, user: user)
            if user != RouteQuery.systemUser && !probes.contains(where: { decisions[$0] != nil }) {
                probes = RouteQuery.internetProbes(family)
            }
            let winner = withUnsafeTemporaryAllocation(of: Outcome.self, capacity: probes.count) { outcomes in
                Self.winner(of: probes, decisions: decisions, family: family, in: state, outcomes: outcomes)
            }
            guard let winner else { continue }
            picks[family] = .some(winner.pick)
            nextHops[family] = winner.gateway
        }
    }

    /// Where one or more probes' packets go, with their votes and next hop.
    private struct Outcome {
        var pick: Int32?
        var votes: Int
        var gateway: IPAddress?
    }

    /// The outcome with the most votes, the first of equals; nil when no probe was answered. `outcomes` holds
    /// room for one per probe: they are kept in the order of the probes that first gave them.
    private static func winner(
        of probes: [RouteQuery], decisions: [RouteQuery: RouteDecision], family: AddressFamily, in state: KernelState,
        outcomes: UnsafeMutableBufferPointer<Outcome>
    ) -> Outcome? {
        var count = 0
        var usableLink: (index: Int32, usable: Bool)?
        for probe in probes {
            let pick: Int32?
            var gateway: IPAddress?
            switch decisions[probe] {
            case nil:
                continue
            case .unroutable:
                pick = nil
            case .via(let index, let via):
                // A link the state does not know yet: the answer is newer than the events; the next batch
                // brings both together.
                guard let link = state.links[index] else { continue }
                let usable: Bool
                if let known = usableLink, known.index == index {
                    usable = known.usable
                } else {
                    usable =
                        link.isRunning && state.hasAddress(on: index, where: { $0.family == family && $0.isUsable })
                    usableLink = (index, usable)
                }
                pick = usable ? index : nil
                gateway = usable ? via : nil
            }
            if let position = outcomes[..<count].firstIndex(where: { $0.pick == pick }) {
                outcomes[position].votes += 1
            } else {
                (outcomes.baseAddress! + count).initialize(to: Outcome(pick: pick, votes: 1, gateway: gateway))
                count += 1
            }
        }
        defer { outcomes.baseAddress!.deinitialize(count: count) }
        // The first of the most voted: max(by:) keeps the first of equals.
        return outcomes[..<count].max(by: { $0.votes < $1.votes })
    }

    /// The interfaces whose status reads differently from this choice than from `old`, given the default routes
    /// now held: for each family whose pick or next hop moved, the interfaces picked before and after; and when the
    /// family is sent nowhere or was not asked about on either side, every interface holding a default route of
    /// the family (the family leaves, or comes back to, their routed families; an interface without such a route
    /// does not route the family either way).
    func interfacesAffected(since old: KernelChoice, routes: Set<DefaultRoute>) -> InterfaceIndexes {
        guard self != old else { return [] }
        var affected = InterfaceIndexes()
        for family in AddressFamily.allCases {
            let before = old.picks[family]
            let after = picks[family]
            guard before != after || old.nextHops[family] != nextHops[family] else { continue }
            for case .some(.some(let index)) in [before, after] { affected.insert(index) }
            if case .some(.some) = before, case .some(.some) = after { continue }
            for route in routes where route.family == family { affected.insert(route.interfaceIndex) }
        }
        return affected
    }

    /// The families a link routes once the kernel's choice is taken into account: a family the kernel sends
    /// nowhere is routed by no interface; the kernel's pick routes its family whatever the model of its routes
    /// says (a rule, a specific route or a nexthop object may be what takes it there).
    func routedFamilies(
        of index: Int32, modelled: AddressFamilies, addressed: AddressFamilies
    ) -> (routed: AddressFamilies, preferred: AddressFamilies) {
        var routed = modelled
        var preferred: AddressFamilies = []
        for family in AddressFamily.allCases {
            guard let asked = picks[family] else { continue }
            guard let pick = asked else {
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
