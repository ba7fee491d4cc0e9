import Dispatch
import Logging
import NetworkHints
import PathModel
import ServiceLifecycle

/// What the kernel's tables do not say, looked up again whenever they change: which links hold a metered DHCP
/// lease (ANDROID_METERED, a phone hotspot), and which SIM sits behind each cellular link. Both are read from
/// files and the system bus, so this runs apart from the kernel events, on its own task, a look-up at a time.
struct NetworkHintsService: Service {
    let hub: PathHub
    let kernelChanges: AsyncStream<Void>
    let leases: MeteredLeaseDetector
    let cellular: any CellularIdentitySource
    let stateDirectory: String
    let logger: Logger

    /// How long to wait before asking the bus again about a cellular link it could not name by its SIM
    /// (ModemManager still starting, a SIM being swapped): kernel changes come often, bus calls need not.
    static let cellularRetryInterval: Duration = .seconds(30)

    func run() async {
        var keyer: SubscriberKeyer?
        var lastAttempt: (links: Set<Int32>, at: ContinuousClock.Instant)?
        for await _ in kernelChanges.cancelOnGracefulShutdown() {
            let interfaces = hub.interfaces.filter { $0.interfaceClass.kind != .loopback }
            refreshMetered(interfaces)
            forgetIdentitiesOfRemovedLinks(present: Set(hub.interfaces.map(\.link.index)))
            // A cellular link is settled once it has a SIM key; a hardware key is a stand-in, asked about again.
            let unsettled = Set(
                interfaces.filter { status in
                    guard status.interfaceClass.kind == .cellular else { return false }
                    guard case .cellular(let subscriber) = status.identity else { return true }
                    return !subscriber.hasPrefix("sim-")
                }.map(\.link.index))
            guard !unsettled.isEmpty else { continue }
            if let lastAttempt, lastAttempt.links == unsettled,
                ContinuousClock.now - lastAttempt.at < Self.cellularRetryInterval
            {
                continue
            }
            lastAttempt = (unsettled, ContinuousClock.now)
            if keyer == nil { keyer = makeKeyer() }
            if let keyer {
                await identifyCellular(interfaces.filter { unsettled.contains($0.link.index) }, keyer: keyer)
            }
        }
    }

    /// Identities learnt for links that are gone would otherwise name a future link that reuses the index.
    private func forgetIdentitiesOfRemovedLinks(present: Set<Int32>) {
        let stale = hub.context.identities.keys.filter { !present.contains($0) }
        guard !stale.isEmpty else { return }
        hub.updateContext { context in
            for index in stale { context.identities[index] = nil }
        }
    }

    private func refreshMetered(_ interfaces: [InterfaceStatus]) {
        let links = interfaces.map { (index: $0.link.index, name: $0.link.name) }
        let addresses = Dictionary(
            interfaces.map { ($0.link.index, Set($0.addresses.map(\.address.description))) },
            uniquingKeysWith: { first, _ in first })
        let metered = leases.meteredInterfaces(links: links, currentAddresses: addresses)
        guard metered != hub.context.meteredInterfaces else { return }
        logger.info("metered DHCP leases", metadata: ["interfaces": "\(metered.sorted())"])
        hub.updateContext { $0.meteredInterfaces = metered }
    }

    /// Keys for SIMs come from a per-machine secret, so the same SIM gets the same key here and nowhere else.
    private func makeKeyer() -> SubscriberKeyer? {
        do {
            return SubscriberKeyer(secret: try SubscriberKeyer.loadOrCreateSecret(stateDirectory: stateDirectory))
        } catch {
            logger.error("cellular networks cannot be identified: \(error)")
            return nil
        }
    }

    private func identifyCellular(_ interfaces: [InterfaceStatus], keyer: SubscriberKeyer) async {
        let cellular = interfaces.filter { $0.interfaceClass.kind == .cellular }
        let source = cellular.isEmpty ? nil : self.cellular
        guard let source else { return }
        // The bus call blocks (up to its timeout): keep it off the cooperative pool.
        let names = cellular.map(\.link.name)
        let result = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    returning: Result { () throws(CellularIdentityUnavailable) in
                        try source.subscribers(forInterfaces: names)
                    })
            }
        }
        switch result {
        case .success(let subscribers):
            let identities = cellular.compactMap { status -> (Int32, NetworkIdentity)? in
                guard let key = subscribers[status.link.name].flatMap(keyer.key(for:)) else { return nil }
                return (status.link.index, .cellular(subscriber: key))
            }
            logger.info("cellular networks identified", metadata: ["count": "\(identities.count)"])
            hub.updateContext { context in
                for (index, identity) in identities { context.identities[index] = identity }
            }
        case .failure(let reason):
            logger.info("cellular networks not identified: \(reason)")
        }
    }
}
