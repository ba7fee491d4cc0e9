import Logging
import NetworkHints
import PathModel
import ServiceLifecycle

/// Feeds the resolver configuration (resolv.conf, systemd-resolved's per-link servers) into the hub, read again
/// whenever inotify says one of its files changed, so `supportsDNS` follows the machine's resolver.
struct ResolverService: Service {
    let reader: ResolverConfigurationReader
    let hub: PathHub
    let logger: Logger

    func run() async {
        let watcher: ResolverWatcher
        do {
            watcher = try ResolverWatcher(reader: reader)
        } catch {
            // Without inotify the configuration is read once: better than claiming no DNS at all.
            logger.warning("cannot watch the resolver configuration (\(error)); read once")
            let configuration = reader.read()
            hub.updateContext(cause: .resolverChange) { $0.resolvers = configuration }
            return
        }
        defer { watcher.stop() }
        for await configuration in watcher.configurations().cancelOnGracefulShutdown() {
            logger.debug(
                "resolver configuration",
                metadata: [
                    "global": "\(configuration.globalServers.count)", "links": "\(configuration.linkServers.count)",
                ])
            hub.updateContext(cause: .resolverChange) { $0.resolvers = configuration }
        }
    }
}
