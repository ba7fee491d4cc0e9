// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PathModel

/// The tracker derives again only the interfaces a change touched (docs/architecture.md, "The dependency graph of a
/// change"). After every step of seeded random sequences (kernel events of every kind, the kernel's choice, hints,
/// policy and classifier changes) at 1 to 500 interfaces, its interfaces and path must equal a derivation from
/// scratch, its interfaces' version must move exactly when they changed, and its state must equal the state
/// rebuilt from its own snapshot (the indexes by interface included).
@Suite struct IncrementalDerivationTests {
    /// Interfaces (loopback included), the steps run at that size, and the seeds.
    static let sizes: [(interfaces: Int, steps: Int)] = [
        (1, 150), (2, 300), (7, 400), (50, 300), (200, 120), (500, 60),
    ]
    static let seeds: [UInt64] = [1, 42, 0xDEAD_BEEF]

    static let classifiers: [Classifier] = [
        Classifier(),
        Classifier(overrides: [
            InterfaceOverride(pattern: "veth*", kind: .cellular),
            InterfaceOverride(pattern: "*-renamed", kind: .wifi, isExpensive: false),
        ]),
    ]

    @Test(arguments: sizes.indices, seeds)
    func incrementalEqualsFromScratch(_ size: Int, _ seed: UInt64) {
        let (count, steps) = Self.sizes[size]
        var generator = ScaledKernel(count: count, random: SplitMix64(seed: seed &+ UInt64(count)))
        var tracker = PathTracker(
            state: KernelState(generator.populated()), evaluator: PathEvaluator(classifier: Self.classifiers[0]))
        var paths = Set<Path>()
        for step in 1...steps {
            let previous = tracker.path
            let (interfacesBefore, versionBefore) = (tracker.interfaces, tracker.interfacesVersion)
            let (networksBefore, identitiesBefore) = (Self.networks(of: tracker), tracker.identitiesVersion)
            let (linksBefore, addressesBefore, factsBefore) =
                (tracker.state.links, Set(tracker.state.addresses), tracker.factsVersion)
            let reported: Path?
            let what: String
            switch generator.random.below(100) {
            case 0..<80:
                let batch = (0...generator.random.below(3)).map { _ in generator.event(after: tracker.state) }
                what = "\(batch)"
                reported = tracker.apply(batch)
            case 80..<98:
                var context = tracker.context
                generator.change(&context, state: tracker.state)
                what = "context \(context)"
                reported = tracker.updateContext { $0 = context }
            default:
                let classifier = Self.classifiers[generator.random.below(Self.classifiers.count)]
                what = "classifier \(classifier)"
                reported = tracker.setEvaluator(PathEvaluator(classifier: classifier))
            }
            let place = "\(count) interfaces, seed \(seed), step \(step): \(what)"
            let state = tracker.state
            let scratch = tracker.evaluator.interfaces(in: KernelState(state.snapshot), context: tracker.context)
            guard
                check(KernelState(state.snapshot) == state, "state differs from its own snapshot", place),
                check(
                    OracleTests.indexHoldsTheRoutes(state), "the routes by interface differ from the routes", place),
                check(
                    tracker.interfaces == scratch, "interfaces differ from scratch", place, tracker.interfaces, scratch),
                check(
                    tracker.path == tracker.evaluator.path(from: scratch, resolvers: tracker.context.resolvers),
                    "path differs from scratch", place),
                check(reported == (tracker.path == previous ? nil : tracker.path), "report differs from change", place),
                // The hub compares versions instead of interfaces: a new version exactly when they changed.
                check(
                    (tracker.interfacesVersion == versionBefore) == (tracker.interfaces == interfacesBefore),
                    "interfaces version differs from change", place),
                // The usage meter looks at the interfaces' networks only when the identities version moved.
                check(
                    Self.networks(of: tracker) == networksBefore || tracker.identitiesVersion != identitiesBefore,
                    "a network changed unseen", place),
                // And then only at the interfaces the tracker names (unless it names none: any may have).
                check(
                    tracker.takeIdentityChanges().map {
                        Self.movedNetworks(from: networksBefore, to: Self.networks(of: tracker)).isSubset(of: $0)
                    } ?? true,
                    "a network moved at an interface not named", place),
                // The hints read links and addresses only when the facts version moved, and otherwise the links
                // whose state alone changed: nothing else of them may change unseen.
                checkFacts(
                    tracker: &tracker, linksBefore: linksBefore, addressesBefore: addressesBefore,
                    factsBefore: factsBefore, place)
            else { return }
            paths.insert(tracker.path)
        }
        // The sequences must move the path, or the comparisons above proved little.
        #expect(paths.count >= (count == 1 ? 1 : 10), "\(count) interfaces reached only \(paths.count) paths")
    }

    /// Each identified interface's index and network, in order (links without one coming and going move the facts
    /// version instead).
    private static func networks(of tracker: PathTracker) -> [String] {
        tracker.interfaces.compactMap { status in status.identity.map { "\(status.link.index) \($0.key)" } }
    }

    /// The indexes whose network differs between two lists of `networks(of:)`: came, went or changed.
    private static func movedNetworks(from before: [String], to after: [String]) -> Set<Int32> {
        Set(Set(before).symmetricDifference(after).compactMap { Int32($0.prefix { $0 != " " }) })
    }

    /// With the facts version unmoved: the same addresses, the same links but for their state, and every link whose
    /// state changed among those taken.
    private func checkFacts(
        tracker: inout PathTracker, linksBefore: [Int32: Link], addressesBefore: Set<InterfaceAddress>,
        factsBefore: UInt64, _ place: String
    ) -> Bool {
        let taken = tracker.takeLinkStateChanges()
        guard tracker.factsVersion == factsBefore else { return true }
        let links = tracker.state.links
        let restated = links.keys.filter { links[$0] != linksBefore[$0] }
        return check(Set(tracker.state.addresses) == addressesBefore, "addresses changed unseen", place)
            && check(Set(links.keys) == Set(linksBefore.keys), "links came or went unseen", place)
            && check(
                restated.allSatisfy { linksBefore[$0]!.differsOnlyInState(from: links[$0]!) },
                "a link changed more than its state unseen", place)
            && check(Set(restated).isSubset(of: taken), "a link's state changed untold", place)
    }

    /// Records the first divergence (with the interfaces that differ) and stops the run.
    private func check(
        _ condition: Bool, _ what: String, _ place: String, _ got: [InterfaceStatus] = [],
        _ expected: [InterfaceStatus] = []
    ) -> Bool {
        if !condition {
            let differing = zip(got, expected).filter { $0 != $1 }.prefix(2)
            Issue.record("\(what): \(place); first differing (got, expected): \(Array(differing))")
        }
        return condition
    }
}

/// Random kernel events and hints over `count` interfaces (index 1 loopback, then every kind in turn), shaped so
/// that most touch one interface among many, as on a host: the incremental derivation must find that one.
struct ScaledKernel {
    let count: Int
    var random: SplitMix64

    func link(_ index: Int32, flags: LinkFlags = runningFlags) -> Link {
        switch index == 1 ? -1 : Int(index) % 6 {
        case -1: makeLoopback(flags: flags.union(.loopback))
        case 0: makeWifi(index, "wlan\(index)", flags: flags)
        case 1: makeModem(index, "wwan\(index)", flags: flags)
        case 2: makeTunnel(index, "wg\(index)", flags: flags)
        case 3: makeLink(index, "veth\(index)", flags: flags, linkKind: "veth")
        default: makeLink(index, "eth\(index)", flags: flags)
        }
    }

    mutating func index() -> Int32 { Int32(random.below(count) + 1) }

    func ipv4(_ index: Int32, _ host: Int) -> IPAddress { ip("10.\(index / 250).\(index % 250).\(host)") }

    /// Every link up with an address, a third with a default route.
    func populated() -> KernelSnapshot {
        let indices = (1...Int32(count))
        return KernelSnapshot(
            links: indices.map { link($0) },
            addresses: indices.map {
                InterfaceAddress(interfaceIndex: $0, address: ipv4($0, 2), prefixLength: 24)
            },
            routes: indices.filter { $0 % 3 == 0 }.map {
                DefaultRoute(family: .ipv4, metric: UInt32($0), interfaceIndex: $0, gateway: ipv4($0, 1))
            })
    }

    mutating func address() -> InterfaceAddress {
        let index = index()
        let address = random.pick([
            ipv4(index, 2), ipv4(index, 3), ip("169.254.\(index % 250).2"), ip("2001:db8:\(index)::2"),
            ip("fe80::\(index)"),
        ])
        let scope = random.pick([AddressScope.universe, .universe, .universe, .site, .link])
        return InterfaceAddress(
            interfaceIndex: index, address: address, prefixLength: address.family == .ipv4 ? 24 : 64, scope: scope,
            isTentative: random.chance(15))
    }

    mutating func route() -> DefaultRoute {
        let index = index()
        let family = random.chance(70) ? AddressFamily.ipv4 : .ipv6
        let gateway = family == .ipv4 ? ipv4(index, 1) : ip(random.pick(["fe80::1", "2001:db8::1"]))
        let destination = random.pick([(UInt8(0), UInt8(0)), (0, 0), (1, 0), (1, 128)])
        return DefaultRoute(
            family: family, table: random.pick([254, 254, 100]), prefixLength: destination.0,
            destinationHighByte: destination.1, metric: UInt32(random.pick([0, 100, 600, Int(index)])),
            interfaceIndex: index, gateway: random.chance(80) ? gateway : nil,
            nexthopID: random.chance(8) ? UInt32(random.pick([1, 2, 10])) : nil)
    }

    /// The kernel's answers to the internet probes of one family: one interface for all, nowhere, or split.
    mutating func decisions() -> KernelEvent {
        let family = random.pick(AddressFamily.allCases)
        let probes = RouteQuery.internetProbes(family)
        if random.chance(15) { return .routeDecisions([:], dropped: Set(probes)) }
        var answers: [RouteQuery: RouteDecision] = [:]
        let pick = index()
        let gateway = family == .ipv4 ? ipv4(pick, 1) : ip("fe80::1")
        for probe in probes {
            answers[probe] =
                random.chance(10)
                ? .unroutable : .via(interfaceIndex: random.chance(85) ? pick : index(), gateway: gateway)
        }
        return .routeDecisions(answers)
    }

    /// One event; removals usually name something the state holds, as the kernel's would.
    mutating func event(after state: KernelState) -> KernelEvent {
        switch random.below(100) {
        case 0..<18:
            var link = link(index(), flags: random.pick(RandomKernel.flagChoices))
            if random.chance(10) { link.name += "-renamed" }
            return .linkChanged(link)
        case 18..<20: return .linkRemoved(index: index())
        case 20..<36: return .addressAdded(address())
        case 36..<44:
            // In a fixed order (the tables are hashed, with a seed of their own per process): the same seed must
            // make the same sequence, or a run could reach fewer paths than the test asks for.
            let held = state.snapshot.addresses
            return .addressRemoved(held.isEmpty || random.chance(20) ? address() : random.pick(held))
        case 44..<60: return .routeAdded(route(), replacing: random.chance(30))
        case 60..<70:
            let held = state.snapshot.routes
            return .routeRemoved(held.isEmpty || random.chance(20) ? route() : random.pick(held))
        case 70..<72: return .routeSlotCleared(route())
        case 72..<80:
            let gateways = state.routes.sorted(by: DefaultRoute.displayOrder).compactMap { route in
                route.gateway.map { (route.interfaceIndex, $0) }
            }
            guard let (index, gateway) = gateways.isEmpty ? nil : random.pick(gateways) else { return decisions() }
            return random.chance(75)
                ? .neighbourChanged(
                    Neighbour(
                        interfaceIndex: index, address: gateway,
                        linkLayerAddress: random.pick(["02:00:00:00:00:01", "02:00:00:00:00:02"])))
                : .neighbourRemoved(interfaceIndex: index, address: gateway)
        case 80..<92: return decisions()
        case 92..<97:
            switch random.below(3) {
            case 0: return .nexthopRemoved(id: UInt32(random.pick([1, 2, 10])))
            case 1: return .nexthopChanged(Nexthop(id: 10, group: [1, 2]))
            default:
                let index = index()
                return .nexthopChanged(
                    Nexthop(id: UInt32(random.pick([1, 2])), interfaceIndex: index, gateway: ipv4(index, 1)))
            }
        case 97..<99: return .snapshot(state.snapshot)
        default: return .snapshot(populated())
        }
    }

    /// The one data limit the random policies set (daily, so that the meter's statuses match its cycle).
    static let limit = DataLimit(bytes: 1_000, cycle: .daily)

    /// Changes one thing the context holds: a hint for one interface, the policy, the data limits' statuses, or
    /// the resolvers.
    mutating func change(_ context: inout NetworkContext, state: KernelState) {
        let index = index()
        func toggle(_ set: inout Set<Int32>) { if set.remove(index) == nil { set.insert(index) } }
        let network = random.below(3)
        let identity = NetworkIdentity.wifi(ssid: Array("net\(network)".utf8))
        switch random.below(8) {
        case 0: toggle(&context.meteredInterfaces)
        case 1: toggle(&context.networkManagerMetered)
        case 2: toggle(&context.roamingInterfaces)
        case 3: context.identities[index] = random.chance(25) ? nil : identity
        case 4:
            context.linkQualities[index] =
                random.chance(25) ? nil : LinkQuality(source: .ethernet, speedMbps: UInt32(random.pick([10, 1000])))
        case 5:
            context.captivePortals[index] =
                random.chance(25) ? nil : CaptivePortalHint(state: random.pick([.captive, .open, .unknown]))
        case 6:
            // No draw of its own for the limit (the interface's parity says): the sequences stay those of before.
            context.policy[identity.key] = NetworkPolicy(
                isConstrained: random.chance(50), isExpensive: random.chance(50) ? nil : true,
                isUltraConstrained: random.chance(20) ? true : nil, dataLimit: index % 2 == 0 ? Self.limit : nil)
        case 7 where index % 2 == 0:
            // The meter's word on a network's limit: its usage this cycle, below, past the warning or past the limit.
            let day = CalendarDay(year: 2026, month: 11, day: 29)
            context.dataLimits[identity.key] = DataLimitStatus(
                limit: Self.limit, used: [0, 850, 1_000][network], cycle: day..<day.advanced(by: 1))
        default:
            context.resolvers = random.chance(50) ? ResolverConfiguration() : context.resolvers
        }
    }
}
