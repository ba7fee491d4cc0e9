// SPDX-License-Identifier: Apache-2.0
import Logging
import PathModel
import SDEvent
import StateFiles

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon: its parts (`DaemonService`), built once from the options and the configuration in the order their
/// needs give (`ServiceGraph`). `run()` starts them on the main loop, serves from the kernel's first snapshot on,
/// runs the loop until SIGTERM or SIGINT, and stops everything in reverse order. Building it opens the netlink
/// socket and takes the state directory's lock; nothing reads an event until `run()`.
final class Daemon {
    /// Every long-lived part, in the order a reader meets them; the start order follows from what each needs.
    static var parts: [any DaemonService.Type] {
        [
            StateFileService.self, HubService.self, PolicyWorker.self, UsageService.self, StateFileSettings.self,
            PolicyController.self, ResolverService.self, KernelFeed.self, PortalCheck.self, ConnectivityCheck.self,
            NetworkHintsService.self, WiFiIdentityService.self, WiFiQualityService.self, ReloadService.self,
            Serving.self,
        ]
    }

    let loop: SDEventLoop
    /// The parts in start order; stopped in reverse, the state files' final flush last.
    let services: [any DaemonService]
    private let notifier = SystemdNotifier()
    /// Held for the daemon's life: a second daemon must not touch this one's files.
    private let stateLock: StateDirectoryLock

    init(options: DaemonOptions, configuration: Configuration, loader: ConfigurationLoader, logger: Logger) throws {
        let loop = try SDEventLoop()
        let watcher = try DaemonSetup.openKernelWatcher(options: options, loop: loop, logger: logger)
        stateLock = try Self.lockStateDirectory(options.stateDirectory, logger: logger)
        let setup = DaemonSetup(
            options: options, configuration: configuration, loader: loader, logger: logger, loop: loop,
            watcher: watcher)
        services = try ServiceGraph.build(Self.parts, setup: setup)
        self.loop = loop
    }

    /// Starts the services in order, runs the main loop on the calling thread until SIGTERM, SIGINT or `exit()`,
    /// then stops the services in reverse order. SIGTERM, SIGINT and SIGHUP must be blocked on the calling thread
    /// (`SDEventLoop.blockSignals`): they arrive through the loop's signalfd. Throws what kept the daemon from
    /// serving.
    func run() throws {
        try Self.start(services)
        defer { Self.stop(services) }
        let loop = loop
        let services = services
        let signals = try [SIGTERM, SIGINT].map { signal in
            try loop.onSignal(signal) {
                for service in services.reversed() { service.loopWillExit() }
                loop.exit()
            }
        }
        loop.run()
        notifier.notify("STOPPING=1")
        withExtendedLifetime(signals) {}
        if let failure = services.lazy.compactMap(\.failure).first { throw failure }
    }

    /// Ends `run()`, as SIGTERM does. From any thread.
    func exit() { loop.exit() }

    /// Starts `services` in order; when one fails, stops the ones started before it, in reverse order, and throws
    /// what it threw.
    static func start(_ services: [any DaemonService]) throws {
        for (index, service) in services.enumerated() {
            do {
                try service.start()
            } catch {
                stop(services[..<index])
                throw error
            }
        }
    }

    /// Stops `services` in reverse order: each after every part that needs it.
    static func stop(_ services: some BidirectionalCollection<any DaemonService>) {
        for service in services.reversed() { service.stop() }
    }

    /// Makes the state directory if it is missing and locks it, before anything in it is read or written: a second
    /// daemon must not touch the first one's files.
    private static func lockStateDirectory(_ directory: String, logger: Logger) throws -> StateDirectoryLock {
        // The state directory holds the policy and the SIM-key secret: private to the daemon. systemd makes it
        // (StateDirectory=); by hand it may be missing.
        do {
            try FileSystem.createDirectories(directory, mode: 0o700)
        } catch {
            logger.warning("cannot create the state directory \(directory): \(error)")
        }
        do {
            return try StateDirectoryLock(directory: directory)
        } catch {
            logger.error("not starting: \(error)")
            throw DaemonExit(status: 1)
        }
    }
}
