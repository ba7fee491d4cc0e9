// SPDX-License-Identifier: Apache-2.0
import PathModel
import SDEvent

/// io.pathmond on its socket (`VarlinkServer`), served from the kernel's first snapshot on: a client must never
/// see a path made of nothing. Then systemd hears READY=1. Nothing needs the server, so it starts last and stops
/// first.
final class Serving: DaemonService {
    static var needs: [any DaemonService.Type] {
        [
            KernelFeed.self, HubService.self, PolicyController.self, UsageService.self, PolicyWorker.self,
        ]
    }
    private let server: VarlinkServer
    private let kernel: KernelFeed
    private let loop: SDEventLoop
    private let notifier: SystemdNotifier
    /// Why serving could not start, set on the main loop by the first snapshot's hook.
    private(set) var failure: (any Error)?

    private init(parts: ServiceParts) throws {
        let setup = parts.setup
        let options = setup.options
        let hub = try parts.get(HubService.self).hub
        let router = CallRouter(
            hub: hub, policy: try parts.get(PolicyController.self), usage: try parts.get(UsageService.self),
            version: options.version)
        let limit = ConnectionLimit(
            maximum: ConnectionLimit.fittingDescriptorLimit(requested: options.maxClients),
            maximumPerUser: options.maxClientsPerUser, logger: setup.logger)
        server = VarlinkServer(
            socketPath: options.socket, inheritedSocket: options.inheritedSocket, router: router,
            connectionLimit: limit,
            interestLimit: InterestLimit(maximumPerUser: options.maxWatchesPerUser, logger: setup.logger),
            mainLoop: setup.loop, trimLoop: try parts.get(PolicyWorker.self).loop, logger: setup.logger)
        kernel = try parts.get(KernelFeed.self)
        loop = setup.loop
        notifier = setup.notifier
    }

    static func make(_ parts: ServiceParts) throws -> Serving { try Serving(parts: parts) }

    func start() {
        kernel.afterFirstSnapshot.add { [weak self] in
            guard let self else { return }
            do {
                try server.start()
                notifier.notify("READY=1\nSTATUS=Serving the network path")
                // Start-up code is done with: keep only what runs from now on resident.
                ResidentCode.trim()
            } catch {
                failure = error
                loop.exit(code: 1)
            }
        }
    }

    /// Stops accepting and closes every client.
    func stop() { server.stop() }
}

/// SIGHUP rereads the configuration and puts it in force in each part it configures.
extension ReloadService: DaemonService {
    static var needs: [any DaemonService.Type] {
        [
            HubService.self, PolicyController.self, StateFileService.self, StateFileSettings.self,
            NetworkHintsService.self, PortalCheck.self, ConnectivityCheck.self, UsageService.self,
        ]
    }

    static func make(_ parts: ServiceParts) throws -> ReloadService {
        let setup = parts.setup
        let hub = try parts.get(HubService.self).hub
        let policy = try parts.get(PolicyController.self)
        let files = try parts.get(StateFileService.self)
        let settings = try parts.get(StateFileSettings.self)
        let hints = try parts.get(NetworkHintsService.self)
        let portal = try parts.get(PortalCheck.self)
        let connectivity = try parts.get(ConnectivityCheck.self)
        let usage = try parts.get(UsageService.self)
        return ReloadService(
            loader: setup.loader,
            apply: { configuration in
                hub.setEvaluator(PathEvaluator(classifier: configuration.classifier))
                policy.setAuthorizer(Authorizer(adminGroup: configuration.adminGroup))
                settings.apply(configuration)
                // A metrics file configured now is written now: the update setEvaluator made may have been written
                // before the settings named the file, and the next path change may be far off.
                files.writer.changed()
                hints.setWritesMetered(configuration.networkManagerWriteMetered)
                portal.configure(configuration)
                connectivity.configure(configuration)
                usage.setInterval(configuration.usageInterval ?? UsageService.defaultInterval)
            }, notifier: setup.notifier, logger: setup.logger, loop: setup.loop)
    }
}
