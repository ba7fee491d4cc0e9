// SPDX-License-Identifier: Apache-2.0
import PathModel

/// The neighbour entries of the routes' gateways, for the route follower: how the kernel's route selection sees
/// each one (whose changes move routing without a route message), and the resolution of those the kernel has no
/// link-layer address for (so a wired network is known at once, not when traffic happens to resolve its gateway).
///
/// A gateway that did not answer (its entry FAILED) is asked again after 1 s, 2 s, 4 s, ... up to
/// `resolveRetries.longest`, so a router that comes up late is still found. Not a poll: nothing is asked for a
/// gateway whose address is known, and the kernel's neighbour notifications end the wait the moment it learns the
/// address by any means. Nor for a gateway whose route comes back while its entry is still as the model released
/// it (`released`).
///
/// Reads the follower's kernel state and asks through its look-up, both passed in; returns the neighbours found,
/// which the follower applies to its state.
struct GatewayNeighbours {
    static let resolveRetries = RetryBackoff(first: .seconds(1), longest: .seconds(64))

    /// The gateways' entries as route selection sees them (absent when not listed): a change asks that family's
    /// queries again, since the kernel moves to another IPv6 router, or another leg of an IPv4 multipath route with
    /// `fib_multipath_use_neigh`, without a route message.
    private var reachability: [GatewayKey: NeighbourReachability] = [:]
    /// Gateways the kernel was asked to resolve, until they are resolved or no route uses them.
    private var resolving: [GatewayKey: ResolveAttempt] = [:]
    /// The errno with which the kernel refused to resolve (EPERM without CAP_NET_ADMIN), until taken. Then
    /// nothing is asked to be resolved any more: a refusal does not go away by asking again.
    private var refusal: Int32?
    private var refusalReported = false
    /// The families of gateways whose entries a request to resolve just made INCOMPLETE (from none or FAILED), since
    /// last taken: the request itself moves an IPv4 multipath leg with `fib_multipath_use_neigh` (INCOMPLETE is as
    /// unusable as FAILED, no entry is usable), and the kernel announces INCOMPLETE to nobody.
    private var requestedFamilies: AddressFamilies = []
    /// The entries the model released since their gateway's route went (`KernelChanges.releasedNeighbours`), kept
    /// current by the kernel's notifications: a route that comes back through the same gateway (a flapping uplink,
    /// a failover and back) finds its entry here, where asking the kernel cost a request and its reply before the
    /// path was published. The kernel announces each change of an entry (RTM_NEWNEIGH, RTM_DELNEIGH); a message
    /// about the entry's link drops it too, since the kernel flushes a link's entries when it goes down, loses its
    /// carrier or changes its address. At most `releasedLimit` are kept.
    private var released: [GatewayKey: Neighbour] = [:]
    static let releasedLimit = 16

    /// One gateway being resolved: how often it was asked, and when to ask again (nil: never).
    private struct ResolveAttempt {
        var count: Int
        var due: ContinuousClock.Instant?
    }

    /// Starts over from a dump: its neighbours are the entries the kernel lists, each usable; nothing is being
    /// resolved. A refusal stays: the kernel refuses again.
    mutating func restart(listing neighbours: [Neighbour]) {
        resolving = [:]
        reachability = [:]
        released = [:]
        for neighbour in neighbours {
            reachability[GatewayKey(interfaceIndex: neighbour.interfaceIndex, address: neighbour.address)] = .valid
        }
    }

    /// The kernel's neighbour notifications were lost: every entry is unknown until it is next announced.
    mutating func forgetReachability() {
        reachability = [:]
        released = [:]
    }

    /// Notes a batch the follower's state applied: keeps the entries it released, then follows the batch's news of
    /// them (the last message about an entry is what the kernel holds; any message about its link drops it).
    /// Whether route selection sees `key`'s entry as usable, as the last message about it (or a dump) said.
    func seesUsable(_ key: GatewayKey) -> Bool {
        reachability[key] == .valid
    }

    /// Whether an entry is kept for a gateway whose route went.
    func isReleased(_ key: GatewayKey) -> Bool {
        !released.isEmpty && released[key] != nil
    }

    mutating func note(_ events: [KernelEvent], changes: KernelChanges) {
        for neighbour in changes.releasedNeighbours {
            released[GatewayKey(interfaceIndex: neighbour.interfaceIndex, address: neighbour.address)] = neighbour
        }
        guard !released.isEmpty else { return }
        for event in events {
            switch event {
            case .neighbourChanged(let neighbour):
                let key = GatewayKey(interfaceIndex: neighbour.interfaceIndex, address: neighbour.address)
                if released[key] != nil { released[key] = neighbour }
            case .neighbourRemoved(let index, let address):
                released[GatewayKey(interfaceIndex: index, address: address)] = nil
            case .linkChanged(let link):
                forgetReleased(on: link.index)
            case .linkRemoved(let index):
                forgetReleased(on: index)
            default:
                break
            }
        }
        // Past the bound, any may go: one dropped costs only the question to the kernel it saved.
        while released.count > Self.releasedLimit { released.remove(at: released.startIndex) }
    }

    /// Drops the released entries on one interface (a link message of a batch: the others' are kept as they are).
    private mutating func forgetReleased(on index: Int32) {
        guard released.keys.contains(where: { $0.interfaceIndex == index }) else { return }
        released = released.filter { $0.key.interfaceIndex != index }
    }

    /// The families whose gateways' entries moved between what route selection tells apart (`NeighbourReachability`);
    /// entries of hosts that no route leaves by are skipped.
    mutating func reachabilityChanges(_ notes: [NeighbourNote], in state: KernelState) -> AddressFamilies {
        var families: AddressFamilies = []
        for note in notes where state.isGateway(note.gateway) {
            let before = reachability[note.gateway] ?? .absent
            guard before != note.reachability else { continue }
            reachability[note.gateway] = note.reachability == .absent ? nil : note.reachability
            families.insert(note.gateway.address.family)
        }
        if reachability.count > 16 {
            reachability = reachability.filter { state.isGateway($0.key) }
        }
        return families
    }

    /// For each gateway newly without a known neighbour: the kernel's entry if it has a usable one (it may have
    /// been resolved before the route came, when the model did not keep it), else a request to resolve it.
    mutating func resolveNew(in state: KernelState, lookup: any RouteLookup, now: ContinuousClock.Instant)
        -> [KernelEvent]
    {
        let unresolved = state.unresolvedGateways
        // Most changes leave every gateway resolved and none being resolved: then nothing is filtered or rebuilt.
        if !resolving.isEmpty { resolving = resolving.filter { unresolved.contains($0.key) } }
        guard !unresolved.isEmpty else { return [] }
        return lookUpOrResolve(
            resolving.isEmpty ? unresolved : unresolved.filter { resolving[$0] == nil }, in: state,
            lookup: lookup, now: now)
    }

    /// When a gateway being resolved is next to be asked again; nil if none is.
    var nextRetry: ContinuousClock.Instant? {
        // Asked after every read of notifications, and most often none is being resolved: no list made then.
        resolving.isEmpty ? nil : resolving.values.compactMap(\.due).min()
    }

    /// Asks again for the gateways whose wait is over: the kernel's entry if it learnt the address meanwhile
    /// without a notification the model kept, else another request. Returns the neighbours found.
    ///
    /// An IPv6 router whose entry FAILED is not asked again: asking would turn the entry INCOMPLETE, which the
    /// kernel's router selection takes for reachable, so the kernel would route into the dead router (silently) for
    /// the seconds a resolution lasts. The kernel probes such routers itself (`rtr_probe_interval`), and its
    /// notification tells when one answers.
    mutating func retryDue(in state: KernelState, lookup: any RouteLookup, now: ContinuousClock.Instant)
        -> [KernelEvent]
    {
        var due: [GatewayKey] = []
        for (gateway, attempt) in resolving where attempt.due.map({ $0 <= now }) == true {
            if gateway.address.family == .ipv6 && reachability[gateway] == .failed {
                resolving[gateway]?.due = nil
            } else {
                due.append(gateway)
            }
        }
        return lookUpOrResolve(due, in: state, lookup: lookup, now: now)
    }

    mutating func takeRequestedFamilies() -> AddressFamilies {
        defer { requestedFamilies = [] }
        return requestedFamilies
    }

    /// The errno of the kernel's refusal to resolve, once: for the daemon to say what it costs.
    mutating func takeRefusal() -> Int32? {
        guard let refusal, !refusalReported else { return nil }
        refusalReported = true
        return refusal
    }

    private mutating func lookUpOrResolve(
        _ gateways: some Sequence<GatewayKey>, in state: KernelState, lookup: any RouteLookup,
        now: ContinuousClock.Instant
    ) -> [KernelEvent] {
        var found: [KernelEvent] = []
        for gateway in gateways {
            if let neighbour = released.removeValue(forKey: gateway) ?? lookup.neighbour(gateway) {
                found.append(.neighbourChanged(neighbour))
                resolving[gateway] = nil
                continue
            }
            let count = (resolving[gateway]?.count ?? 0) + 1
            guard refusal == nil else {
                resolving[gateway] = ResolveAttempt(count: count, due: nil)
                continue
            }
            let resolution = lookup.resolve(gateway)
            if case .refused(let errno) = resolution {
                refusal = errno
                resolving[gateway] = ResolveAttempt(count: count, due: nil)
                continue
            }
            if resolution == .requested && reachability[gateway] != .pending && state.isGateway(gateway) {
                reachability[gateway] = .pending
                requestedFamilies.insert(gateway.address.family)
            }
            let interval = Self.resolveRetries.delay(afterFailures: count)
            resolving[gateway] = ResolveAttempt(count: count, due: now + interval)
        }
        return found
    }
}
