// SPDX-License-Identifier: Apache-2.0
import Logging
import NetworkHints
import PathModel
import SDEvent

/// What the kernel's tables do not say, looked up again whenever they or the system bus's services change: which
/// links hold a metered DHCP lease (ANDROID_METERED, a phone hotspot), which ones NetworkManager calls metered, and
/// which SIM sits behind each cellular link. NetworkManager and ModemManager are followed through their D-Bus
/// signals (`SystemBusWatch`), so a change there arrives as an event, like a kernel change; nothing is polled.
///
/// Everything here runs on the daemon's main loop: the watchers' signals arrive there, and so do kernel batches.
final class NetworkHintsService {
    private let hub: PathHub
    let loop: SDEventLoop
    private let leases: MeteredLeaseDetector
    /// Where networkd records each link's captive-portal URI.
    private let portalFiles: CaptivePortalFiles
    /// The captive-portal URIs the DHCP leases and networkd's link files held when last read, by index.
    private var announcedPortals: [Int32: String] = [:]
    /// The RFC 8908 check of the announced portal APIs (`[captive-portal] check-api`); nil: none.
    var portalChecker: CaptivePortalChecker?
    /// pathmond's own connectivity check (`[connectivity]`, through pathmond-probe); nil: none.
    var connectivityChecker: ConnectivityChecker?
    /// Where sysfs lists network interfaces (speed, duplex).
    private let sysfsRoot: String
    /// The Ethernet figures last read, by index, with the link state they were read in: read again only when the
    /// link changes (carrier, a renegotiation comes with a carrier flap), not on every address or route event.
    private var ethernetReadings: [Int32: (link: Link, quality: LinkQuality?)] = [:]
    /// Where a modem's hardware identity comes from when ModemManager cannot name its SIM.
    private let sysfsModems: any CellularIdentitySource
    /// Whether to follow NetworkManager and ModemManager on the system bus at all.
    private let usesSystemBus: Bool
    /// The system bus's address; nil: `DBUS_SYSTEM_BUS_ADDRESS`, else the standard socket.
    private let systemBusAddress: String?
    private let stateDirectory: String
    let logger: Logger
    private var networkManager: NetworkManagerWatcher?
    /// `[networkmanager] write-metered`, and what performs it (NetworkHintsService+WriteThrough.swift).
    var writesMetered = false
    var meteredWriter: NetworkManagerMeteredWriter?
    /// Followed only with the system bus; its radios say which cellular links roam.
    private var modemManager: ModemManagerWatcher?
    private var bus: SystemBusWatch?
    private var cellular: FallbackCellularIdentitySource?
    private var keyer: SubscriberKeyer?
    /// A look-up is queued on the loop: a burst of changes, from whichever source, costs one.
    private var isRefreshQueued = false
    /// A source other than the kernel changed since the last look-up.
    private var sourcesChanged = true
    /// The path changed since the last look-up: NetworkManager's Metered is written again.
    private var verdictsMoved = false
    /// The hub's `factsVersion` at the last look-up.
    private var factsLookedAt: UInt64?
    /// Follows the lease directories, so leases are read when they change, not on every kernel event.
    private var leaseDirectories: DirectoryWatcher?
    /// What the lease files were last read for (links and their addresses) and whether they changed since: a
    /// route change alone never calls for reading them again.
    private var leaseInputs: LeaseInputs?
    private var leasesChanged = true

    init(
        hub: PathHub, loop: SDEventLoop, leases: MeteredLeaseDetector,
        portalFiles: CaptivePortalFiles = CaptivePortalFiles(), sysfsRoot: String = "/sys/class/net",
        sysfsModems: any CellularIdentitySource,
        usesSystemBus: Bool, systemBusAddress: String?, stateDirectory: String, logger: Logger
    ) {
        self.hub = hub
        self.loop = loop
        self.leases = leases
        self.portalFiles = portalFiles
        self.sysfsRoot = sysfsRoot
        self.sysfsModems = sysfsModems
        self.usesSystemBus = usesSystemBus
        self.systemBusAddress = systemBusAddress
        self.stateDirectory = stateDirectory
        self.logger = logger
    }

    /// Follows the system bus (if asked to) and looks everything up once. On the main loop.
    func start() {
        let logger = logger
        let refresh = UncheckedTransfer(self)
        let networkManager = NetworkManagerWatcher(
            onChange: { refresh.value.sourceChanged() }, onProblem: { logger.warning("NetworkManager: \($0)") })
        let modemManager = ModemManagerWatcher(
            onChange: { refresh.value.sourceChanged() }, onProblem: { logger.warning("ModemManager: \($0)") })
        if usesSystemBus {
            let writer = makeMeteredWriter()
            meteredWriter = writer
            let bus = SystemBusWatch(
                address: systemBusAddress, networkManager: networkManager, modemManager: modemManager,
                meteredWriter: writer, loop: loop, onProblem: { logger.notice("D-Bus: \($0)") })
            bus.start()
            self.bus = bus
        }
        self.networkManager = networkManager
        if usesSystemBus { self.modemManager = modemManager }
        let leases = leases
        let linkDirectory = portalFiles.networkdLinkDirectory
        do {
            let watcher = try DirectoryWatcher(
                directories: { leases.directoriesToWatch + [linkDirectory] }, loop: loop, followsAppends: true)
            watcher.start {
                refresh.value.leasesChanged = true
                refresh.value.sourceChanged()
            }
            leaseDirectories = watcher
        } catch {
            // Without inotify, leases are read again whenever links or addresses change instead.
            logger.warning(
                "cannot watch the DHCP lease directories (\(error)); reading them whenever links or addresses change")
        }
        cellular = FallbackCellularIdentitySource(usesSystemBus ? [modemManager, sysfsModems] : [sysfsModems])
        sourceChanged()
    }

    func stop() {
        restoreWrittenMetered()
        bus?.stop()
        bus = nil
        leaseDirectories?.stop()
        leaseDirectories = nil
    }

    /// The kernel's tables changed (after each batch): the look-ups read links and addresses, not routes, so they
    /// run again only if those changed (`PathHub.factsVersion`), and a route flip costs nothing here.
    func kernelChanged() {
        queueRefresh()
    }

    /// Something else the hints depend on changed (NetworkManager, ModemManager, a lease file, the portal check,
    /// the configuration, pathmond's own verdicts): look at everything again.
    func sourceChanged() {
        sourcesChanged = true
        queueRefresh()
    }

    /// pathmond's verdicts changed (the path did): only what is written through to NetworkManager follows them.
    func verdictsChanged() {
        verdictsMoved = true
        queueRefresh()
    }

    /// Once for a whole burst, from whichever source, after the loop has handled what is ready now.
    private func queueRefresh() {
        guard !isRefreshQueued else { return }
        isRefreshQueued = true
        let service = UncheckedTransfer(self)
        loop.execute {
            service.value.isRefreshQueued = false
            service.value.refresh()
        }
    }

    private func refresh() {
        guard let networkManager, let cellular else { return }
        let facts = hub.factsVersion
        let linkStates = hub.takeLinkStateChanges()
        defer { verdictsMoved = false }
        guard sourcesChanged || facts != factsLookedAt else {
            // Links whose state alone changed (a carrier flap): only their Ethernet figures may have, and the
            // others' are not looked at, so a flap on a host of 500 veths costs what it costs on one.
            if !linkStates.isEmpty {
                let touched = hub.interfaces(withIndexes: linkStates)
                refreshLinkQualities(touched, radios: modemManager?.radios() ?? [:], all: false)
            }
            if verdictsMoved { writeMetered(hub.interfaces, devices: networkManager.meteredInterfaces) }
            // A default route that came or went (the path moved) makes an interface usable or not: the connectivity
            // check follows routes, which the other look-ups do not read.
            if verdictsMoved, connectivityChecker != nil {
                let interfaces = hub.interfaces.filter { $0.interfaceClass.kind != .loopback }
                refreshCaptivePortals(interfaces, connectivity: networkManager.connectivityByInterface)
            }
            return
        }
        sourcesChanged = false
        factsLookedAt = facts
        let all = hub.interfaces
        let interfaces = all.filter { $0.interfaceClass.kind != .loopback }
        refreshMetered(interfaces)
        // NetworkManager's Metered where pathmond wrote it is pathmond's own voice, not a detection.
        let discounted = meteredWriter?.discounted ?? []
        refreshNetworkManager(
            interfaces, metered: networkManager.meteredInterfaces.filter { !discounted.contains($0.key) })
        writeMetered(hub.interfaces, devices: networkManager.meteredInterfaces)
        forgetIdentitiesOfRemovedLinks(present: Set(all.map(\.link.index)))
        refreshRoaming(interfaces, radios: modemManager?.radios() ?? [:])
        refreshCaptivePortals(interfaces, connectivity: networkManager.connectivityByInterface)
        refreshLinkQualities(interfaces, radios: modemManager?.radios() ?? [:], all: true)
        let cellularLinks = interfaces.filter { $0.interfaceClass.kind == .cellular }
        guard !cellularLinks.isEmpty else { return }
        if keyer == nil { keyer = makeKeyer() }
        if let keyer { identifyCellular(cellularLinks, source: cellular, keyer: keyer) }
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
        let inputs = LeaseInputs(
            links: links.map { LeaseInputs.Link(index: $0.index, name: $0.name) }, addresses: addresses)
        guard leasesChanged || leaseDirectories == nil || inputs != leaseInputs else { return }
        leasesChanged = false
        leaseInputs = inputs
        let current = leases.currentLeases(links: links, currentAddresses: addresses)
        // The same read gives the portal URIs: the lease in use, then networkd's link file (which also holds a
        // DHCPv6 or router advertisement URI).
        var portals = current.compactMapValues(\.captivePortal)
        portals.merge(portalFiles.networkdPortals(links: links.map(\.index))) { _, linkFile in linkFile }
        announcedPortals = portals
        let metered = leases.metered(current)
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

    /// ModemManager names ports; the path needs indices. Only cellular links can roam (a modem's port the
    /// configuration calls something else is left to the model, which ignores roaming on it).
    private func refreshRoaming(_ interfaces: [InterfaceStatus], radios: [String: CellularRadio]) {
        let roaming = Set(interfaces.filter { radios[$0.link.name]?.isRoaming == true }.map(\.link.index))
        guard roaming != hub.context.roamingInterfaces else { return }
        let started = roaming.subtracting(hub.context.roamingInterfaces)
        let changed = roaming.symmetricDifference(hub.context.roamingInterfaces)
        let names = interfaces.filter { roaming.contains($0.link.index) }.map(\.link.name)
        logger.info("cellular roaming", metadata: ["interfaces": "\(names.sorted())"])
        let detail = started.isEmpty ? "home network" : "roaming"
        hub.updateContext(cause: .detected(.cellular, interfaces: Array(changed), detail: detail)) {
            $0.roamingInterfaces = roaming
        }
    }

    /// Combines what the network announced (the URI) with what NetworkManager's check found (the state), or where it
    /// found nothing, pathmond's own check.
    private func refreshCaptivePortals(
        _ interfaces: [InterfaceStatus], connectivity: [String: NetworkManagerConnectivity]
    ) {
        var hints: [Int32: CaptivePortalHint] = [:]
        let linkNames = Dictionary(
            interfaces.map { ($0.link.index, $0.link.name) }, uniquingKeysWith: { first, _ in first })
        let answers = portalChecker?.answers(announced: announcedPortals, names: linkNames) ?? [:]
        let checked =
            connectivityChecker?.states(
                for: interfaces, networkManagerChecks: networkManager?.connectivityCheckRuns ?? false) ?? [:]
        for status in interfaces {
            let state: CaptivePortal =
                switch connectivity[status.link.name] {
                case .portal?: .captive
                case .full?: .open
                default: .unknown
                }
            let index = status.link.index
            // pathmond's own check (ConnectivityChecker.swift) speaks where neither NetworkManager nor the portal's
            // API did: CaptivePortalHint.resolved.
            let hint = CaptivePortalHint(
                state: state, uri: announcedPortals[index], api: answers[index], checked: checked[index] ?? .unknown)
            if hint != CaptivePortalHint() { hints[status.link.index] = hint }
        }
        guard hints != hub.context.captivePortals else { return }
        let changed = Set(hints.keys).union(hub.context.captivePortals.keys).filter {
            hints[$0] != hub.context.captivePortals[$0]
        }
        let names = interfaces.filter { changed.contains($0.link.index) }.map(\.link.name)
        logger.info("captive portals", metadata: ["interfaces": "\(names.sorted())"])
        hub.updateContext(cause: .detected(.captivePortal, interfaces: Array(changed))) { $0.captivePortals = hints }
    }

    /// Ethernet from sysfs, cellular from ModemManager's radios; Wi-Fi's figures (nl80211) belong to
    /// `WiFiQualityService` and are left alone. Only a change `differsSignificantly` reaches the path. `all`: the
    /// interfaces are every interface (figures of others are dropped); otherwise only these were looked at again.
    /// Each interface is settled where it is read: a carrier flap's own link, without a dictionary of measurements
    /// made, filled and hashed (issue 41).
    private func refreshLinkQualities(_ interfaces: [InterfaceStatus], radios: [String: CellularRadio], all: Bool) {
        let current = hub.linkQualities
        var next = current
        var changed: [Int32] = []
        func settle(_ index: Int32, measured: LinkQuality?) {
            let quality = Self.quality(current: current[index], measured: measured)
            guard quality != current[index] else { return }
            next[index] = quality
            changed.append(index)
        }
        for status in interfaces {
            settle(status.link.index, measured: measurement(of: status, radios: radios))
        }
        if all {
            // Links that are gone, or no longer looked at (loopback), keep no figures.
            let present = Set(interfaces.lazy.map(\.link.index))
            ethernetReadings = ethernetReadings.filter { present.contains($0.key) }
            for index in current.keys where !present.contains(index) { settle(index, measured: nil) }
            changed.sort()
        }
        guard !changed.isEmpty else { return }
        hub.updateContext(cause: .detected(.linkQuality, interfaces: changed)) { $0.linkQualities = next }
    }

    /// One interface's figures as measured now: a wired link's read again only when its link changed.
    private func measurement(of status: InterfaceStatus, radios: [String: CellularRadio]) -> LinkQuality? {
        switch status.interfaceClass.kind {
        case .wired where !status.isTunnel:
            let index = status.link.index
            if let reading = ethernetReadings.index(forKey: index), ethernetReadings.values[reading].link == status.link
            {
                return ethernetReadings.values[reading].quality
            }
            let quality = EthernetLink.quality(sysfsRoot: sysfsRoot, name: status.link.name)
            ethernetReadings[index] = (status.link, quality)
            return quality
        case .cellular where !status.isTunnel:
            guard let radio = radios[status.link.name], radio.accessTechnologies != 0 else { return nil }
            return LinkQuality(
                source: .modemManager, accessTechnologies: radio.accessTechnologies,
                signalQualityPercent: radio.signalQuality)
        default:
            return nil
        }
    }

    /// What one interface's quality becomes: a new measurement replaces the current figure only when it differs
    /// significantly; without one, a Wi-Fi figure stays (`WiFiQualityService`'s) and any other goes.
    private static func quality(current: LinkQuality?, measured: LinkQuality?) -> LinkQuality? {
        if let measured { return measured.differsSignificantly(from: current) ? measured : current }
        return current?.source == .nl80211 ? current : nil
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
    ) {
        let names = cellular.map(\.link.name)
        // ModemManager's answer is in memory; sysfs files are small and local: read on the loop.
        let result = Result { () throws(CellularIdentityUnavailable) in
            try source.subscribers(forInterfaces: names)
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

/// What the lease look-up depends on besides the files: the links and their IPv4 addresses.
private struct LeaseInputs: Equatable {
    struct Link: Equatable {
        var index: Int32
        var name: String
    }
    var links: [Link]
    var addresses: [Int32: Set<String>]
}
