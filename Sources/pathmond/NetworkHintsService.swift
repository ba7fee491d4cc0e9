import Dispatch
import Logging
import NetworkHints
import PathModel
import ServiceLifecycle

/// What the kernel's tables do not say, looked up again whenever they or the system bus's services change: which
/// links hold a metered DHCP lease (ANDROID_METERED, a phone hotspot), which ones NetworkManager calls metered, and
/// which SIM sits behind each cellular link. NetworkManager and ModemManager are followed through their D-Bus
/// signals (`SystemBusWatch`), so a change there arrives as an event, like a kernel change; nothing is polled.
struct NetworkHintsService: Service {
    let hub: PathHub
    let kernelChanges: AsyncStream<Void>
    let leases: MeteredLeaseDetector
    /// Where a modem's hardware identity comes from when ModemManager cannot name its SIM.
    let sysfsModems: any CellularIdentitySource
    /// Whether to follow NetworkManager and ModemManager on the system bus at all.
    let usesSystemBus: Bool
    /// The system bus's address; nil: `DBUS_SYSTEM_BUS_ADDRESS`, else the standard socket.
    let systemBusAddress: String?
    let stateDirectory: String
    let logger: Logger

    func run() async {
        // Newest only: one look-up after a burst of changes, whichever source they came from.
        let (changes, changed) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let logger = self.logger
        let networkManager = NetworkManagerWatcher(
            onChange: { changed.yield() }, onProblem: { logger.warning("NetworkManager: \($0)") })
        let modemManager = ModemManagerWatcher(onChange: { changed.yield() })
        let bus = SystemBusWatch(
            address: systemBusAddress, networkManager: networkManager, modemManager: modemManager,
            onProblem: { logger.notice("D-Bus: \($0)") })
        if usesSystemBus { bus.start() }
        defer { bus.stop() }
        let cellular = FallbackCellularIdentitySource(usesSystemBus ? [modemManager, sysfsModems] : [sysfsModems])
        var keyer: SubscriberKeyer?
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await _ in kernelChanges { changed.yield() }
                changed.finish()
            }
            for await _ in changes.cancelOnGracefulShutdown() {
                let interfaces = hub.interfaces.filter { $0.interfaceClass.kind != .loopback }
                refreshMetered(interfaces)
                refreshNetworkManager(interfaces, metered: networkManager.meteredInterfaces)
                forgetIdentitiesOfRemovedLinks(present: Set(hub.interfaces.map(\.link.index)))
                let cellularLinks = interfaces.filter { $0.interfaceClass.kind == .cellular }
                guard !cellularLinks.isEmpty else { continue }
                if keyer == nil { keyer = makeKeyer() }
                if let keyer { await identifyCellular(cellularLinks, source: cellular, keyer: keyer) }
            }
            group.cancelAll()
        }
    }

    /// Identities learnt for links that are gone would otherwise name a future link that reuses the index.
    private func forgetIdentitiesOfRemovedLinks(present: Set<Int32>) {
        let stale = hub.context.identities.keys.filter { !present.contains($0) }
        guard !stale.isEmpty else { return }
        hub.updateContext(cause: .detected(.identityForgotten, interfaces: stale)) { context in
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
        let changed = metered.symmetricDifference(hub.context.meteredInterfaces)
        hub.updateContext(cause: .detected(.dhcpMetered, interfaces: Array(changed))) { $0.meteredInterfaces = metered }
    }

    /// NetworkManager names devices; the path needs indices, so this runs again after kernel changes too (a link
    /// that appears after NetworkManager reported it).
    private func refreshNetworkManager(_ interfaces: [InterfaceStatus], metered: [String: NetworkManagerMetered]) {
        let indices = Set(interfaces.filter { metered[$0.link.name]?.isMetered == true }.map(\.link.index))
        guard indices != hub.context.networkManagerMetered else { return }
        let names = interfaces.filter { indices.contains($0.link.index) }.map(\.link.name)
        logger.info("NetworkManager metered", metadata: ["interfaces": "\(names.sorted())"])
        let changed = indices.symmetricDifference(hub.context.networkManagerMetered)
        hub.updateContext(cause: .detected(.networkManagerMetered, interfaces: Array(changed))) {
            $0.networkManagerMetered = indices
        }
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

    /// ModemManager's answer is in memory (followed through signals); sysfs is read from files. Both are cheap, so
    /// every cellular link is keyed again on every change, and only a different key is applied: a SIM swapped in
    /// the same modem moves the link to the new SIM's network.
    private func identifyCellular(
        _ cellular: [InterfaceStatus], source: FallbackCellularIdentitySource, keyer: SubscriberKeyer
    ) async {
        let names = cellular.map(\.link.name)
        // sysfs reads block: keep them off the cooperative pool.
        let result = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    returning: Result { () throws(CellularIdentityUnavailable) in
                        try source.subscribers(forInterfaces: names)
                    })
            }
        }
        guard case .success(let subscribers) = result else { return }
        let current = hub.context.identities
        let identities = cellular.compactMap { status -> (Int32, NetworkIdentity)? in
            guard let key = subscribers[status.link.name].flatMap(keyer.key(for:)) else { return nil }
            let identity = NetworkIdentity.cellular(subscriber: key)
            // ModemManager restarting leaves only the modem's hardware key for a while: a SIM key stays.
            if case .cellular(let known) = current[status.link.index], known.hasPrefix("sim-"), !key.hasPrefix("sim-") {
                return nil
            }
            return current[status.link.index] == identity ? nil : (status.link.index, identity)
        }
        guard !identities.isEmpty else { return }
        logger.info("cellular networks identified", metadata: ["count": "\(identities.count)"])
        hub.updateContext(cause: .detected(.cellular, interfaces: identities.map(\.0))) { context in
            for (index, identity) in identities { context.identities[index] = identity }
        }
    }
}
