// SPDX-License-Identifier: Apache-2.0
/// Keeps the kernel state and the current path, and says when the path changed: kernel events in, a new path
/// out only if it differs (derive, diff, then notify). The caller publishes.
public struct PathTracker: Sendable {
    /// Everything the tracker keeps, in one box shared by its copies until one of them changes (copy on write).
    /// The hub copies the tracker out of its lock on every update, to derive the watched interests from it: field
    /// by field, a copy was 66 reference counts taken and given back, 4,000 instructions of a route flip.
    /// `@unchecked Sendable`: a box is changed only while one tracker holds it (`makeUnique`), so a box two
    /// trackers (two threads) hold is only read.
    private final class Storage: @unchecked Sendable {
        var state: KernelState
        var evaluator: PathEvaluator
        var context: NetworkContext
        var path: Path
        var interfacesVersion: UInt64 = 0
        var factsVersion: UInt64 = 0
        var identitiesVersion: UInt64 = 0
        var linkStateChanges = InterfaceIndexes()
        var identityChanges: InterfaceIndexes? = InterfaceIndexes()
        var ownStatuses: [InterfaceStatus]
        var tunnels: Set<Int32>
        var inherited: [InterfaceStatus]?
        var kernel: KernelChoice

        init(
            state: KernelState, evaluator: PathEvaluator, context: NetworkContext, path: Path,
            ownStatuses: [InterfaceStatus], tunnels: Set<Int32>, inherited: [InterfaceStatus]?, kernel: KernelChoice
        ) {
            self.state = state
            self.evaluator = evaluator
            self.context = context
            self.path = path
            self.ownStatuses = ownStatuses
            self.tunnels = tunnels
            self.inherited = inherited
            self.kernel = kernel
        }

        func copy() -> Storage {
            let copy = Storage(
                state: state, evaluator: evaluator, context: context, path: path, ownStatuses: ownStatuses,
                tunnels: tunnels, inherited: inherited, kernel: kernel)
            copy.interfacesVersion = interfacesVersion
            copy.factsVersion = factsVersion
            copy.identitiesVersion = identitiesVersion
            copy.linkStateChanges = linkStateChanges
            copy.identityChanges = identityChanges
            return copy
        }
    }

    private var storage: Storage

    /// Gives this tracker a box of its own before it changes one.
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    /// The kernel as the applied events describe it.
    public private(set) var state: KernelState {
        _read { yield storage.state }
        _modify {
            makeUnique()
            yield &storage.state
        }
    }
    /// How the path is derived.
    public private(set) var evaluator: PathEvaluator {
        _read { yield storage.evaluator }
        _modify {
            makeUnique()
            yield &storage.evaluator
        }
    }
    /// Identities, detection and the user's policy.
    public private(set) var context: NetworkContext {
        _read { yield storage.context }
        _modify {
            makeUnique()
            yield &storage.context
        }
    }
    /// The path after the last applied events.
    public private(set) var path: Path {
        _read { yield storage.path }
        _modify {
            makeUnique()
            yield &storage.path
        }
    }
    /// Every interface's status after the last change, from the kept own statuses (each derived again only when a
    /// change touched its inputs), read by every consumer (the per-client paths and flows are narrowed from it).
    /// Without tunnels, the kept array itself.
    public var interfaces: [InterfaceStatus] { inherited ?? ownStatuses }
    /// Counts the changes of `interfaces`: an equal version, equal interfaces. What a consumer compares, rather
    /// than a copy of the array, which would be shared when the next change writes one status and make it copy
    /// every status.
    public private(set) var interfacesVersion: UInt64 {
        _read { yield storage.interfacesVersion }
        _modify {
            makeUnique()
            yield &storage.interfacesVersion
        }
    }
    /// Counts the changes of what the interfaces are apart from their routes: links, addresses, the classifier and
    /// the context. A consumer that reads no route (the hints' lease, portal and modem look-ups) compares it, so
    /// that a route flip costs it nothing.
    public private(set) var factsVersion: UInt64 {
        _read { yield storage.factsVersion }
        _modify {
            makeUnique()
            yield &storage.factsVersion
        }
    }
    /// Counts the changes of the interfaces' identities (the networks they are on): an equal version, every
    /// interface on the same network as before. What the usage meter compares, so that a route flip that leaves
    /// every network where it was costs it one comparison instead of a pass over every interface.
    public private(set) var identitiesVersion: UInt64 {
        _read { yield storage.identitiesVersion }
        _modify {
            makeUnique()
            yield &storage.identitiesVersion
        }
    }
    /// The links whose state alone changed since `takeLinkStateChanges` was last called (their facts otherwise
    /// did not: `factsVersion` did not move for them).
    public private(set) var linkStateChanges: InterfaceIndexes {
        _read { yield storage.linkStateChanges }
        _modify {
            makeUnique()
            yield &storage.linkStateChanges
        }
    }
    /// The interfaces whose identity (network) changed, came or went since `takeIdentityChanges` was last called;
    /// nil: not known which (a derivation of every interface moved networks, or nobody took them for long), every
    /// interface is to be looked at. What the usage meter reads, so that a route flip that moves one interface's
    /// network looks at that one, not at every interface of a host of hundreds.
    public private(set) var identityChanges: InterfaceIndexes? {
        _read { yield storage.identityChanges }
        _modify {
            makeUnique()
            yield &storage.identityChanges
        }
    }

    /// Each interface's own status (before tunnels inherit their carriers' cost), by index: the node of the
    /// dependency graph (docs/architecture.md) that a change derives again only for the interfaces it touched.
    private var ownStatuses: [InterfaceStatus] {
        _read { yield storage.ownStatuses }
        _modify {
            makeUnique()
            yield &storage.ownStatuses
        }
    }
    /// The indexes of the tunnels among them: without any, nothing inherits a carrier's cost.
    private var tunnels: Set<Int32> {
        _read { yield storage.tunnels }
        _modify {
            makeUnique()
            yield &storage.tunnels
        }
    }
    /// With tunnels, the statuses after they inherited their carriers' cost; nil without.
    private var inherited: [InterfaceStatus]? {
        _read { yield storage.inherited }
        _modify {
            makeUnique()
            yield &storage.inherited
        }
    }
    /// The kernel's choice `ownStatuses` were derived with.
    private var kernel: KernelChoice {
        _read { yield storage.kernel }
        _modify {
            makeUnique()
            yield &storage.kernel
        }
    }

    public init(
        state: KernelState = KernelState(), evaluator: PathEvaluator = PathEvaluator(),
        context: NetworkContext = NetworkContext()
    ) {
        let kernel = KernelChoice(state)
        let own = evaluator.ownStatuses(in: state, context: context, kernel: kernel)
        let tunnels = Set(own.lazy.filter(\.isTunnel).map(\.link.index))
        let inherited = tunnels.isEmpty ? nil : PathEvaluator.inheritingCarrierCost(own, decisions: state.decisions)
        storage = Storage(
            state: state, evaluator: evaluator, context: context,
            path: evaluator.path(from: inherited ?? own, resolvers: context.resolvers), ownStatuses: own,
            tunnels: tunnels, inherited: inherited, kernel: kernel)
    }

    /// Applies a batch of events; returns the new path if it differs from the previous one.
    public mutating func apply<Events: Sequence<KernelEvent>>(_ events: Events) -> Path? {
        applyBatch(events)
    }

    /// The same for an array, what the hub passes: specialized here (see `KernelState.apply(_:)`).
    public mutating func apply(_ events: [KernelEvent]) -> Path? {
        applyBatch(events)
    }

    private mutating func applyBatch<Events: Sequence<KernelEvent>>(_ events: Events) -> Path? {
        let readsNothingNew = answersOnlyFlows(events)
        let changes = state.apply(events)
        if changes.linksOrAddresses { factsVersion &+= 1 }
        linkStateChanges.formUnion(changes.linkStates)
        // Nobody took them for a long while: a version move says as much, and costs no memory.
        if linkStateChanges.count > 4096 {
            linkStateChanges = InterfaceIndexes()
            factsVersion &+= 1
        }
        if let changes = identityChanges, changes.count > 4096 { identityChanges = nil }
        return readsNothingNew ? nil : reevaluate(touched: changes.all ? nil : changes.interfaces)
    }

    /// Whether the events are answers the interfaces and the path do not read: route decisions for flows' own
    /// queries, neither an internet probe (the kernel's choice, as any user) nor a tunnel's endpoint (its carrier).
    /// A slice of a thousand flows' answers then derives no interface again: it is the flows' to read.
    private func answersOnlyFlows(_ events: some Sequence<KernelEvent>) -> Bool {
        var endpoints: Set<RouteQuery>?
        for event in events {
            guard case .routeDecisions(let answers, let dropped) = event else { return false }
            let tunnels = endpoints ?? Set(state.links.values.lazy.flatMap { $0.tunnel?.queries ?? [] })
            endpoints = tunnels
            // Without tunnels (the common case) no query is hashed: a thousand flows' answers were a thousand
            // look-ups in an empty set.
            func isRead(_ query: RouteQuery) -> Bool {
                RouteQuery.isInternetProbe(query) || (!tunnels.isEmpty && tunnels.contains(query))
            }
            if answers.keys.contains(where: isRead) || dropped.contains(where: isRead) { return false }
        }
        return true
    }

    /// The links whose state alone changed since the last call, and forgets them: for the one reader of them (the
    /// hints' look-ups of link state).
    public mutating func takeLinkStateChanges() -> InterfaceIndexes {
        defer { linkStateChanges = InterfaceIndexes() }
        return linkStateChanges
    }

    /// The interfaces whose identity changed since the last call (nil: any may have), and forgets them: for the
    /// one reader of them (the usage meter, which counts bytes per network).
    public mutating func takeIdentityChanges() -> InterfaceIndexes? {
        defer { identityChanges = InterfaceIndexes() }
        return identityChanges
    }

    /// Changes how interfaces are classified; returns the new path if that changed it.
    public mutating func setEvaluator(_ evaluator: PathEvaluator) -> Path? {
        self.evaluator = evaluator
        factsVersion &+= 1
        // The classifier is read by every interface's status.
        return reevaluate(touched: nil)
    }

    /// Changes identities, detection or policy; returns the new path if that changed it.
    public mutating func updateContext(_ update: (inout NetworkContext) -> Void) -> Path? {
        let before = context
        update(&context)
        factsVersion &+= 1
        return reevaluate(
            touched: context.interfacesChanged(since: before).map(InterfaceIndexes.init),
            resolversChanged: context.resolvers != before.resolvers)
    }

    /// Derives again the statuses of the `touched` interfaces (nil: all) and of those the kernel's choice moved
    /// between, then the interfaces and, if they or the resolvers changed, the path; returns the path if it changed.
    private mutating func reevaluate(touched: InterfaceIndexes?, resolversChanged: Bool = false) -> Path? {
        let newKernel = KernelChoice(state)
        let moved = newKernel.interfacesAffected(since: kernel, routes: state.routes)
        kernel = newKernel
        var ownChanged = false
        if let touched {
            for index in touched.union(moved) where deriveAgain(index) { ownChanged = true }
        } else {
            let all = evaluator.ownStatuses(in: state, context: context, kernel: kernel)
            ownChanged = all != ownStatuses
            let sameNetworks = all.elementsEqual(ownStatuses) {
                $0.link.index == $1.link.index && $0.identity == $1.identity
            }
            if !sameNetworks {
                identitiesVersion &+= 1
                identityChanges = nil
            }
            ownStatuses = all
            tunnels = Set(all.lazy.filter(\.isTunnel).map(\.link.index))
        }
        // Whether `interfaces` changed. Where tunnels were and are, by comparing what they inherit (an own status
        // may change and the tunnel's not: it was expensive by its carrier already). A tunnel that came or went
        // changed its own status, so the interfaces.
        let changed: Bool
        if tunnels.isEmpty {
            changed = ownChanged || inherited != nil
            inherited = nil
        } else {
            // A tunnel's carrier is the kernel's route to its endpoint: read again on every change.
            let new = PathEvaluator.inheritingCarrierCost(ownStatuses, decisions: state.decisions)
            changed = inherited.map { $0 != new } ?? true
            inherited = new
        }
        if changed { interfacesVersion &+= 1 }
        guard changed || resolversChanged else { return nil }
        let newPath = evaluator.path(from: interfaces, resolvers: context.resolvers)
        guard newPath != path else { return nil }
        path = newPath
        return newPath
    }

    /// Derives one interface's status again, in its place by index: replaced, inserted, or removed with its link.
    /// Returns whether it changed.
    private mutating func deriveAgain(_ index: Int32) -> Bool {
        let low = Self.insertionPoint(of: index, in: ownStatuses)
        let held = low < ownStatuses.count && ownStatuses[low].link.index == index
        guard let link = state.links[index] else {
            guard held else { return false }
            if ownStatuses[low].identity != nil { identityChanged(index) }
            ownStatuses.remove(at: low)
            tunnels.remove(index)
            return true
        }
        // The evaluator is the one that derived the held status (a new one derives every status afresh), so the
        // class of an unchanged link is still its class, and so is that of a link whose state alone changed (a
        // carrier flap): a class reads the link's name, kind, hardware and device, and of its flags only loopback,
        // which a driver sets once. Classified again, a flap hashed its kind and driver four times (issue 41).
        let knownClass =
            held && Self.classReads(ownStatuses[low].link, likewise: link) ? ownStatuses[low].interfaceClass : nil
        let status = evaluator.status(
            of: consume link, in: state, context: context, kernel: kernel, knownClass: knownClass)
        // Most hosts have no tunnel: then no index is hashed to find it is not one.
        if status.isTunnel {
            tunnels.insert(index)
        } else if !tunnels.isEmpty {
            tunnels.remove(index)
        }
        if held {
            guard ownStatuses[low] != status else { return false }
            if ownStatuses[low].identity != status.identity { identityChanged(index) }
            ownStatuses[low] = status
        } else {
            if status.identity != nil { identityChanged(index) }
            ownStatuses.insert(status, at: low)
        }
        return true
    }

    /// Whether `link` reads as `held` does to the classification rules (`Classifier.classify`).
    private static func classReads(_ held: Link, likewise link: Link) -> Bool {
        held.flags.contains(.loopback) == link.flags.contains(.loopback)
            && (held == link || held.differsOnlyInState(from: link))
    }

    private mutating func identityChanged(_ index: Int32) {
        identitiesVersion &+= 1
        identityChanges?.insert(index)
    }

    /// Where a status for `index` is or would go among `statuses`, which are in index order.
    static func insertionPoint(of index: Int32, in statuses: [InterfaceStatus]) -> Int {
        var low = 0
        var high = statuses.count
        while low < high {
            let middle = (low + high) / 2
            if statuses[middle].link.index < index { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
