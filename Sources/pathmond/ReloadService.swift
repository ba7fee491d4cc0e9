import Dispatch
import Logging
import PathModel
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#endif

/// SIGHUP (`systemctl reload pathmond`) re-reads the configuration and applies it without a restart: the same
/// process, the same clients, the path re-derived under the new rules. A file that cannot be used is reported at
/// priority err and the configuration in force stays.
struct ReloadService: Service {
    let loader: ConfigurationLoader
    let apply: @Sendable (Configuration) -> Void
    let notifier: SystemdNotifier
    let logger: Logger

    func run() async throws {
        // A signal source, not an async sequence of signals: it stops at once on shutdown, where an iterator
        // waiting for the next SIGHUP would hold the service group open.
        let queue = DispatchQueue(label: "pathmond.reload")
        let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: queue)
        source.setEventHandler { reload() }
        source.resume()
        try? await gracefulShutdown()
        source.cancel()
    }

    /// Ignores SIGHUP's default action (termination) until the reload service handles it: called first thing at
    /// start, so a reload sent while the daemon starts is never fatal.
    static func trapHangups() {
        signal(SIGHUP, SIG_IGN)
    }

    func reload() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        notifier.notifyReloading(monotonicMicroseconds: UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000)
        defer { notifier.notify("READY=1\nSTATUS=Serving the network path") }
        do {
            let (configuration, warnings) = try loader.load()
            for warning in warnings { logger.warning("\(warning)") }
            apply(configuration)
            logger.notice("configuration reloaded", metadata: ["file": "\(loader.path ?? "none (built-in rules)")"])
        } catch {
            logger.error("configuration not reloaded, the previous one stays in force: \(error)")
        }
    }
}
