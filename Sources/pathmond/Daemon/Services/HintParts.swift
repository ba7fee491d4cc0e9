// SPDX-License-Identifier: Apache-2.0
import NetworkHints
import PathModel

/// The RFC 8908 check of the portal APIs networks announce (`CaptivePortalChecker`, through pathmond-probe): it
/// sends requests of pathmond's own, so only when the configuration asks for it. `changed` runs when an answer changed what the path
/// may show.
final class PortalCheck: DaemonService {
    static var needs: [any DaemonService.Type] { [] }
    let checker: CaptivePortalChecker
    let changed: LoopHook

    private init(parts: ServiceParts) {
        let setup = parts.setup
        let changed = LoopHook()
        self.changed = changed
        checker = CaptivePortalChecker(
            loop: setup.loop, probeSocket: setup.options.connectivityProbe, logger: setup.logger,
            onChange: { changed() })
        configure(setup.configuration)
    }

    static func make(_ parts: ServiceParts) throws -> PortalCheck { PortalCheck(parts: parts) }

    func configure(_ configuration: Configuration) { checker.setEnabled(configuration.captivePortalCheckAPI) }

    func start() {}
    func stop() { checker.stop() }
}

/// pathmond's own connectivity check (`ConnectivityChecker`, through pathmond-probe, which alone may open IP
/// sockets): on unless configured off or (by default) NetworkManager checks itself. `changed` runs when a verdict
/// changed what the path may show.
final class ConnectivityCheck: DaemonService {
    static var needs: [any DaemonService.Type] { [] }
    let checker: ConnectivityChecker
    let changed: LoopHook

    private init(parts: ServiceParts) {
        let setup = parts.setup
        let changed = LoopHook()
        self.changed = changed
        checker = ConnectivityChecker(
            loop: setup.loop, probeSocket: setup.options.connectivityProbe, logger: setup.logger,
            onChange: { changed() })
        configure(setup.configuration)
    }

    static func make(_ parts: ServiceParts) throws -> ConnectivityCheck { ConnectivityCheck(parts: parts) }

    func configure(_ configuration: Configuration) { checker.configure(configuration.connectivity) }

    func start() {}
    func stop() { checker.stop() }
}

/// What the kernel's tables do not say (`NetworkHintsService`): looked up again after kernel batches, the checks'
/// answers and path changes, which it hears through the hooks of the parts it needs.
extension NetworkHintsService: DaemonService {
    static var needs: [any DaemonService.Type] {
        [
            HubService.self, KernelFeed.self, PortalCheck.self, ConnectivityCheck.self,
        ]
    }

    static func make(_ parts: ServiceParts) throws -> NetworkHintsService {
        let setup = parts.setup
        let options = setup.options
        let hub = try parts.get(HubService.self)
        let hints = NetworkHintsService(
            hub: hub.hub, loop: setup.loop,
            leases: MeteredLeaseDetector(networkdLeaseDirectory: options.networkdLeases),
            portalFiles: CaptivePortalFiles(networkdLinkDirectory: options.networkdLinks),
            sysfsRoot: options.sysfsRoot, sysfsModems: SysfsModemIdentitySource(),
            usesSystemBus: options.usesSystemBus, systemBusAddress: options.systemBus,
            stateDirectory: options.stateDirectory, logger: setup.logger)
        hints.writesMetered = setup.configuration.networkManagerWriteMetered
        let portal = try parts.get(PortalCheck.self)
        let connectivity = try parts.get(ConnectivityCheck.self)
        hints.portalChecker = portal.checker
        hints.connectivityChecker = connectivity.checker
        portal.changed.add { [weak hints] in hints?.sourceChanged() }
        connectivity.changed.add { [weak hints] in hints?.sourceChanged() }
        try parts.get(KernelFeed.self).afterBatch.add { [weak hints] in hints?.kernelChanged() }
        hub.updates.add(on: setup.loop) { [weak hints] in hints?.pathChanged() }
        return hints
    }

    /// NetworkManager gets back what pathmond wrote while the bus still works: sd-bus closes it as the loop exits.
    func loopWillExit() { restoreWrittenMetered() }
}
