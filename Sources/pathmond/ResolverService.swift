// SPDX-License-Identifier: Apache-2.0
import Logging
import NetworkHints
import PathModel
import SDEvent

/// Feeds the resolver configuration (resolv.conf, systemd-resolved's per-link servers) into the hub, read again
/// whenever inotify says one of its files changed, so `supportsDNS` follows the machine's resolver.
final class ResolverService {
    private let reader: ResolverConfigurationReader
    private let hub: PathHub
    private let loop: SDEventLoop
    private let logger: Logger
    private var watcher: ResolverWatcher?

    init(reader: ResolverConfigurationReader, hub: PathHub, loop: SDEventLoop, logger: Logger) {
        self.reader = reader
        self.hub = hub
        self.loop = loop
        self.logger = logger
    }

    /// Reads the configuration now and follows it from then on; on the main loop, before the kernel's first
    /// snapshot is applied. The first read is applied here, synchronously: left to the watcher's first event, it
    /// arrived after the snapshot and every start was recorded as two path changes (the second one "resolver
    /// configuration changed"). The watcher's own first read then finds the same configuration and changes nothing.
    func start() {
        let hub = hub
        let logger = logger
        let initial = reader.read()
        hub.updateContext(cause: .resolverChange) { $0.resolvers = initial }
        do {
            let watcher = try ResolverWatcher(reader: reader, loop: loop)
            watcher.start(
                handler: { configuration in
                    logger.debug(
                        "resolver configuration",
                        metadata: [
                            "global": "\(configuration.globalServers.count)",
                            "links": "\(configuration.linkServers.count)",
                        ])
                    hub.updateContext(cause: .resolverChange) { $0.resolvers = configuration }
                },
                // Without inotify the configuration is read once: better than claiming no DNS at all.
                watchFailed: { logger.warning("cannot watch the resolver configuration (\($0)); read once") })
            self.watcher = watcher
        } catch {
            logger.warning("cannot watch the resolver configuration (\(error)); read once")
        }
    }

    func stop() {
        watcher?.stop()
    }
}
