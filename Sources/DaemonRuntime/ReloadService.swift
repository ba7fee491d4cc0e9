// SPDX-License-Identifier: Apache-2.0
import Logging
import PathModel
import SDEvent

#if canImport(Glibc)
    import Glibc
#endif

/// SIGHUP (`systemctl reload pathmond`) re-reads the configuration and applies it without a restart: the same
/// process, the same clients, the path re-derived under the new rules. A file that cannot be used is reported at
/// priority err and the configuration in force stays.
package final class ReloadService {
    package let loader: ConfigurationLoader
    package let apply: (Configuration) -> Void
    package let notifier: SystemdNotifier
    package let logger: Logger
    /// The STATUS= sent with READY=1 once the reload is done.
    package let readyStatus: String
    private let loop: SDEventLoop
    private var hangUp: SDEventSource?

    package init(
        loader: ConfigurationLoader, apply: @escaping (Configuration) -> Void, notifier: SystemdNotifier,
        logger: Logger, readyStatus: String = "Serving the network path", loop: SDEventLoop
    ) {
        self.loader = loader
        self.apply = apply
        self.notifier = notifier
        self.logger = logger
        self.readyStatus = readyStatus
        self.loop = loop
    }

    /// Reloads on each SIGHUP, through the loop's signalfd, until `stop()`. SIGHUP must be blocked since start (the
    /// daemon blocks it first thing, so a reload sent while it starts waits instead of killing it).
    package func start() throws(SDEventError) {
        hangUp = try loop.onSignal(SIGHUP) { [unowned self] in reload() }
    }

    package func stop() {
        hangUp = nil
    }

    package func reload() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        notifier.notifyReloading(monotonicMicroseconds: UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000)
        defer { notifier.notify("READY=1\nSTATUS=\(readyStatus)") }
        do {
            let (configuration, warnings) = try loader.load()
            for warning in warnings { logger.warning("\(warning)") }
            apply(configuration)
            var metadata = JournalRecord.configurationReloaded.metadata([
                .configFile: loader.path, .cause: PathChangeCause.Kind.configuration.rawValue,
            ])
            metadata["file"] = "\(loader.path ?? "none (built-in rules)")"
            logger.notice("configuration reloaded", metadata: metadata)
        } catch {
            logger.error(
                "configuration not reloaded, the previous one stays in force: \(error)", metadata: error.journalMetadata
            )
        }
    }
}
