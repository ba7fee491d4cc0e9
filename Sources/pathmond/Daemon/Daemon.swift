// SPDX-License-Identifier: Apache-2.0
import Logging
import Netlink
import NetworkHints
import PathModel
import PolicyStore
import SDEvent
import StateFiles

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's parts, built once from the options and the configuration, and their one order: `run()` starts the
/// services on the main loop, serves from the kernel's first snapshot on, runs the loop until SIGTERM or SIGINT,
/// and stops everything in reverse order. Building it opens the netlink socket and takes the state directory's
/// lock; nothing reads an event until `run()`.
final class Daemon {
    let loop: SDEventLoop
    let hub: PathHub
    /// The long-lived parts in start order (the resolver before the kernel's first snapshot, so the path it yields
    /// already has its resolvers; SIGHUP's reload last); stopped in reverse, the state writer's final flush last.
    let services: [any DaemonService]
    /// Starts once the kernel's first snapshot is in the hub (a client must never see a path made of nothing),
    /// and stops first.
    private let server: VarlinkServer
    private let notifier: SystemdNotifier
    /// Gives NetworkManager back what the write-through wrote, on SIGTERM and SIGINT, before the loop exits.
    private let hints: NetworkHintsService
    /// Held for the daemon's life: a second daemon must not touch this one's files.
    private let stateLock: StateDirectoryLock
    private let failure: StartFailure

    init(options: DaemonOptions, configuration: Configuration, loader: ConfigurationLoader, logger: Logger) throws {
        let loop = try SDEventLoop()
        let probe = SysfsDeviceProbe(root: options.sysfsRoot)
        let watcher: KernelWatcher
        do {
            watcher = try KernelWatcher(
                receiveBufferSize: options.receiveBuffer, loop: loop,
                deviceFacts: { _, name in probe.facts(forInterfaceNamed: name) },
                resolutionRefused: { number in
                    let reason = String(cString: strerror(number))
                    let cost =
                        "pathmond runs without CAP_NET_ADMIN (a container without it, or a unit that drops it). A "
                        + "wired network is identified, and its policy applied, only once other traffic makes the "
                        + "kernel learn its gateway"
                    logger.warning("the kernel refused to resolve a gateway's address (\(reason)): \(cost)")
                })
        } catch {
            // EX_USAGE, as documented in pathmond(8) since swift-argument-parser's ValidationError gave it.
            throw DaemonExit(
                status: DaemonCommandLine.usageExitCode, message: "cannot open the netlink socket: \(error)")
        }
        let stateDirectory = options.stateDirectory
        // The state directory holds the policy and the SIM-key secret: private to the daemon. systemd makes it
        // (StateDirectory=); by hand it may be missing.
        do {
            try FileSystem.createDirectories(stateDirectory, mode: 0o700)
        } catch {
            logger.warning("cannot create the state directory \(stateDirectory): \(error)")
        }
        // Before anything in the directory is read or written: a second daemon must not touch the first one's files.
        do {
            stateLock = try StateDirectoryLock(directory: stateDirectory)
        } catch {
            logger.error("not starting: \(error)")
            throw DaemonExit(status: 1)
        }
        let store = PolicyStore(stateDirectory: stateDirectory)
        let (policy, loadProblem) = Self.loadPolicy(store, logger: logger)
        let startTime = StateWriters.wallSecondsNow()
        let counters = DaemonCounters()
        let writers = StateWriters.load(
            configuration: configuration, stateDirectory: stateDirectory, counters: counters, logger: logger)
        let stateWriter = StateWriterService(writers: writers, logger: logger)
        let fanOut = try FanOut(loop: loop)
        let pathChanges = PathChangeRelay()
        let usageChanges = PathChangeRelay()
        let hub = PathHub(
            evaluator: PathEvaluator(classifier: configuration.classifier), context: NetworkContext(policy: policy),
            logger: logger, fanOut: fanOut.deliver, flowQueriesChanged: { watcher.changeFlowQueries($0, version: $1) },
            history: writers.history, counters: counters,
            afterUpdate: {
                stateWriter.changed()
                pathChanges.fire()
                usageChanges.fire()
            })
        let version = options.version
        let policyLoop = try PolicyController.startWorker()
        let usage = Self.usageService(
            loop: loop, hub: hub, stateDirectory: stateDirectory, writerLoop: policyLoop,
            interval: configuration.usageInterval ?? UsageService.defaultInterval, logger: logger,
            counted: { stateWriter.changed() })
        usageChanges.connect { usage.interfacesChanged() }
        writers.configure(configuration, hub: hub, usage: usage, version: version, startTime: startTime)
        let policyController = PolicyController(
            hub: hub, store: store, authorizer: Authorizer(adminGroup: configuration.adminGroup),
            policyFile: store.path, loadProblem: loadProblem, loop: policyLoop, hubLoop: loop,
            logger: logger)
        let router = CallRouter(hub: hub, policy: policyController, usage: usage, version: version)
        let notifier = SystemdNotifier()
        let limit = ConnectionLimit(
            maximum: ConnectionLimit.fittingDescriptorLimit(requested: options.maxClients),
            maximumPerUser: options.maxClientsPerUser, logger: logger)
        let server = VarlinkServer(
            socketPath: options.socket, inheritedSocket: options.inheritedSocket,
            router: router, connectionLimit: limit,
            interestLimit: InterestLimit(maximumPerUser: options.maxWatchesPerUser, logger: logger),
            mainLoop: loop, trimLoop: policyLoop, logger: logger)
        let hints = NetworkHintsService(
            hub: hub, loop: loop, leases: MeteredLeaseDetector(networkdLeaseDirectory: options.networkdLeases),
            portalFiles: CaptivePortalFiles(networkdLinkDirectory: options.networkdLinks), sysfsRoot: options.sysfsRoot,
            sysfsModems: SysfsModemIdentitySource(), usesSystemBus: options.usesSystemBus,
            systemBusAddress: options.systemBus, stateDirectory: stateDirectory, logger: logger)
        hints.writesMetered = configuration.networkManagerWriteMetered
        // The RFC 8908 check asks pathmond-probe too: only when the configuration asks for it.
        let portalChecker = CaptivePortalChecker(
            loop: loop, probeSocket: options.connectivityProbe, logger: logger, onChange: { hints.sourceChanged() })
        portalChecker.setEnabled(configuration.captivePortalCheckAPI)
        hints.portalChecker = portalChecker
        // The connectivity check asks pathmond-probe, which alone may open IP sockets; on unless configured off or
        // (by default) NetworkManager checks itself.
        let connectivityChecker = ConnectivityChecker(
            loop: loop, probeSocket: options.connectivityProbe, logger: logger, onChange: { hints.sourceChanged() })
        connectivityChecker.configure(configuration.connectivity)
        hints.connectivityChecker = connectivityChecker
        // pathChanged() only queues a job on the loop: safe from the hub's thread.
        let hintsForRelay = UncheckedTransfer(hints)
        pathChanges.connect { hintsForRelay.value.pathChanged() }
        let reload = ReloadService(
            loader: loader,
            apply: { configuration in
                hub.setEvaluator(PathEvaluator(classifier: configuration.classifier))
                policyController.setAuthorizer(Authorizer(adminGroup: configuration.adminGroup))
                writers.configure(configuration, hub: hub, usage: usage, version: version, startTime: startTime)
                // A metrics file configured now is written now: the update setEvaluator made may have been written
                // before configure named the file, and the next path change may be far off.
                stateWriter.changed()
                hints.setWritesMetered(configuration.networkManagerWriteMetered)
                portalChecker.setEnabled(configuration.captivePortalCheckAPI)
                connectivityChecker.configure(configuration.connectivity)
                usage.setInterval(configuration.usageInterval ?? UsageService.defaultInterval)
            }, notifier: notifier, logger: logger, loop: loop)
        let resolver = ResolverService(
            reader: ResolverConfigurationReader(
                resolvConf: options.resolvConf, resolvedDirectory: options.resolvedDirectory),
            hub: hub, loop: loop, logger: logger)
        // Without Wi-Fi (no nl80211) this does nothing; the daemon goes on.
        let wifi = WiFiIdentityService(source: NL80211IdentityWatcher(loop: loop), hub: hub, logger: logger)
        let wifiQuality = WiFiQualityService(source: NL80211QualityWatcher(loop: loop), hub: hub, logger: logger)
        let failure = StartFailure()
        let kernel = KernelWatchService(
            watcher: watcher, hub: hub, logger: logger, afterBatch: { hints.kernelChanged() },
            afterFirstSnapshot: {
                do {
                    try server.start()
                    notifier.notify("READY=1\nSTATUS=Serving the network path")
                    // Start-up code is done with: keep only what runs from now on resident.
                    ResidentCode.trim()
                } catch {
                    failure.error = error
                    loop.exit(code: 1)
                }
            })
        self.loop = loop
        self.hub = hub
        self.server = server
        self.notifier = notifier
        self.hints = hints
        self.failure = failure
        services = [stateWriter, usage, resolver, kernel, hints, wifi, wifiQuality, reload]
    }

    /// Starts the services in order, runs the main loop on the calling thread until SIGTERM, SIGINT or `exit()`,
    /// then stops the server and the services in reverse order. SIGTERM, SIGINT and SIGHUP must be blocked on the
    /// calling thread (`SDEventLoop.blockSignals`): they arrive through the loop's signalfd. Throws what kept the
    /// daemon from serving.
    func run() throws {
        var started: [any DaemonService] = []
        do {
            for service in services {
                try service.start()
                started.append(service)
            }
            let loop = loop
            let hints = hints
            // NetworkManager gets back what pathmond wrote while the bus still works: sd-bus closes it as the loop
            // exits.
            let signals = [
                try loop.onSignal(SIGTERM) {
                    hints.restoreWrittenMetered()
                    loop.exit()
                },
                try loop.onSignal(SIGINT) {
                    hints.restoreWrittenMetered()
                    loop.exit()
                },
            ]
            loop.run()
            notifier.notify("STOPPING=1")
            withExtendedLifetime(signals) {}
        } catch {
            stop(started)
            throw error
        }
        stop(started)
        if let error = failure.error { throw error }
    }

    /// Ends `run()`, as SIGTERM does. From any thread.
    func exit() { loop.exit() }

    private func stop(_ started: [any DaemonService]) {
        server.stop()
        for service in started.reversed() { service.stop() }
    }

    /// Loads the policy. A damaged file does not stop the daemon: it was kept aside, what could be salvaged is in
    /// force, and the problem is logged here and shown by `pathctl status`.
    private static func loadPolicy(_ store: PolicyStore, logger: Logger) -> (Policy, String?) {
        do {
            let (policy, report) = try store.load()
            if let report {
                if case .newerVersion = report.problem {
                    logger.error(
                        "policy file written by a newer pathmond, left untouched: \(report)",
                        metadata: JournalRecord.policyFileDamaged.metadata())
                } else {
                    logger.error("policy file damaged: \(report)", metadata: JournalRecord.policyFileDamaged.metadata())
                }
                return (policy, "\(report)")
            }
            logger.info("policy loaded", metadata: ["networks": "\(policy.networks.count)", "file": "\(store.path)"])
            return (policy, nil)
        } catch {
            logger.error(
                "cannot load the policy: \(error); starting with none, and saving is refused until fixed",
                metadata: JournalRecord.policyFileDamaged.metadata())
            return (Policy(), "\(error)")
        }
    }
}

/// Why serving could not start, set on the main loop by the first snapshot's handler and read after the loop.
private final class StartFailure {
    var error: (any Error)?
}
