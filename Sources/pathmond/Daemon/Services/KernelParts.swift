// SPDX-License-Identifier: Apache-2.0
import Netlink
import NetworkHints

/// The kernel's notifications fed into the hub (`KernelWatchService`), with the hooks the parts that follow them
/// add to: after each batch that changed links or addresses, and once, after the first snapshot.
final class KernelFeed: DaemonService {
    /// The resolver is read before the first snapshot, so that the path the snapshot yields already has its
    /// resolvers.
    static var needs: [any DaemonService.Type] { [HubService.self, ResolverService.self] }
    private let service: KernelWatchService
    /// After each batch that changed links or addresses (not a route storm), on the main loop.
    let afterBatch: LoopHook
    /// Once the first snapshot is in the hub: clients may be served from then on.
    let afterFirstSnapshot: LoopHook

    private init(parts: ServiceParts) throws {
        let afterBatch = LoopHook()
        let afterFirstSnapshot = LoopHook()
        self.afterBatch = afterBatch
        self.afterFirstSnapshot = afterFirstSnapshot
        service = KernelWatchService(
            watcher: parts.setup.watcher, hub: try parts.get(HubService.self).hub, logger: parts.setup.logger,
            afterBatch: { afterBatch() }, afterFirstSnapshot: { afterFirstSnapshot() })
    }

    static func make(_ parts: ServiceParts) throws -> KernelFeed { try KernelFeed(parts: parts) }

    func start() { service.start() }
    func stop() { service.stop() }
}

extension ResolverService: DaemonService {
    static var needs: [any DaemonService.Type] { [HubService.self] }

    static func make(_ parts: ServiceParts) throws -> ResolverService {
        let setup = parts.setup
        return ResolverService(
            reader: ResolverConfigurationReader(
                resolvConf: setup.options.resolvConf, resolvedDirectory: setup.options.resolvedDirectory),
            hub: try parts.get(HubService.self).hub, loop: setup.loop, logger: setup.logger)
    }
}

/// Without Wi-Fi (no nl80211) the two Wi-Fi parts say so and do nothing; the daemon goes on.
extension WiFiIdentityService: DaemonService {
    static var needs: [any DaemonService.Type] { [HubService.self] }

    static func make(_ parts: ServiceParts) throws -> WiFiIdentityService {
        WiFiIdentityService(
            source: NL80211IdentityWatcher(loop: parts.setup.loop), hub: try parts.get(HubService.self).hub,
            logger: parts.setup.logger)
    }
}

extension WiFiQualityService: DaemonService {
    static var needs: [any DaemonService.Type] { [HubService.self] }

    static func make(_ parts: ServiceParts) throws -> WiFiQualityService {
        WiFiQualityService(
            source: NL80211QualityWatcher(loop: parts.setup.loop), hub: try parts.get(HubService.self).hub,
            logger: parts.setup.logger)
    }
}
