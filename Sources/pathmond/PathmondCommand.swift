// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Logging
import Netlink
import NetworkHints
import PathModel
import PolicyStore
import SDEvent
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// pathmond: follows the kernel's links, addresses and routes and serves the network path over Varlink.
@main
struct PathmondCommand: ParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "pathmond",
        abstract: "Network path monitor: serves the system's network path over Varlink.",
        discussion: """
            pathmond follows the kernel's links, addresses, routes and rules through rtnetlink, derives the \
            system's network path (satisfied or not, which interfaces, expensive, constrained) and serves it, and \
            each client's own path and flows, on a Varlink socket. NetworkManager's Metered and ModemManager's SIM \
            identities come from the system bus. It runs as the service pathmond.service (socket-activated, user \
            pathmond); pathctl(1) shows and sets what it serves, pathmond.conf(5) configures it, and SIGHUP \
            rereads the configuration. One pathmond serves a state directory: a second one exits.
            """,
        version: version
    )

    @Option(help: "The Unix socket to serve io.pathmond on.")
    var socket = "/run/pathmond/io.pathmond"

    @Option(help: "The configuration file (INI; see pathmond.conf(5)). Default: /etc/pathmond.conf, if it exists.")
    var config: String?

    @Option(help: "Where the policy (the networks the user marked) is kept.")
    var stateDir = "/var/lib/pathmond"

    @Option(help: "Log level: trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    @Option(help: "The most clients served at once (lowered to fit the open-file limit).")
    var maxClients = 16384

    @Option(help: "The most clients one user other than root may hold at once.")
    var maxClientsPerUser = 1024

    @Option(help: "The most distinct paths and flows one user other than root may watch at once.")
    var maxWatchesPerUser = 512

    @Option(help: "The netlink receive buffer in bytes (set with SO_RCVBUFFORCE when above rmem_max).")
    var receiveBuffer = 32 * 1024 * 1024

    @Option(help: ArgumentHelp("Where sysfs lists network interfaces.", visibility: .hidden))
    var sysfsRoot = "/sys/class/net"

    @Option(help: ArgumentHelp("Where systemd-networkd keeps DHCP leases.", visibility: .hidden))
    var networkdLeases = "/run/systemd/netif/leases"

    @Option(help: ArgumentHelp("Where systemd-networkd keeps link state (captive portals).", visibility: .hidden))
    var networkdLinks = "/run/systemd/netif/links"

    @Option(help: ArgumentHelp("The resolver configuration file.", visibility: .hidden))
    var resolvConf = "/etc/resolv.conf"

    @Option(help: ArgumentHelp("systemd-resolved's runtime directory.", visibility: .hidden))
    var resolvedDir = "/run/systemd/resolve"

    @Option(
        help: ArgumentHelp(
            "The system bus's D-Bus address (default: $DBUS_SYSTEM_BUS_ADDRESS, else the standard socket).",
            visibility: .hidden))
    var systemBus: String?

    @Flag(help: "Do not follow NetworkManager and ModemManager on the system bus.")
    var noSystemBus = false

    @Flag(
        help: ArgumentHelp(
            "Check the configuration file (FILE, else --config, else /etc/pathmond.conf) and exit: 0 if pathmond "
                + "would accept it, 78 (EX_CONFIG) with FILE:LINE: why on stderr if not."))
    var checkConfig = false

    @Flag(
        help: ArgumentHelp(
            "Run as the root helper pathmond-dispatcher.service: follow the path on --socket and start and stop "
                + "pathmond-online.target and pathmond-unmetered.target through systemd, after the settle and "
                + "grace times of [discretionary] in the configuration."))
    var dispatcher = false

    @Option(help: "With --dispatcher: the root-only socket where deferred runs are registered and listed.")
    var dispatcherSocket = "/run/pathmond-dispatcher/io.pathmond.Dispatcher"

    @Option(help: "With --dispatcher: where the deferred runs are kept across restarts and reboots.")
    var dispatcherStateDir = "/var/lib/pathmond-dispatcher"

    @Argument(help: ArgumentHelp("The file --check-config checks.", valueName: "file"))
    var checkedFile: String?

    /// sysexits.h's EX_CONFIG: the unit does not restart on it (RestartPreventExitStatus=), since a restart reads
    /// the same file again.
    static let configurationExitCode: Int32 = 78

    func validate() throws {
        if checkedFile != nil && !checkConfig {
            throw ValidationError("a file argument is only taken with --check-config; use --config FILE to run with it")
        }
    }

    func run() throws {
        // Before any thread exists, so that every thread inherits the mask: these signals arrive only through the
        // main loop's signalfd (a SIGHUP sent while the daemon starts waits there instead of killing it).
        SDEventLoop.blockSignals([SIGTERM, SIGINT, SIGHUP])
        // A client that hangs up while a reply is written must cost an EPIPE, not the daemon.
        signal(SIGPIPE, SIG_IGN)
        bootstrapLogging()
        let logger = Logger(label: "pathmond")
        if checkConfig { return try check(ConfigurationLoader(explicitPath: checkedFile ?? config)) }
        if dispatcher { return try runDispatcher(logger: Logger(label: "pathmond-dispatcher")) }
        let loader = ConfigurationLoader(explicitPath: config)
        let configuration: Configuration
        do {
            let (loaded, warnings) = try loader.load()
            for warning in warnings { logger.warning("\(warning)") }
            configuration = loaded
        } catch {
            // Once, at err, with FILE:LINE; no usage text (the command line was fine), and an exit status the unit
            // does not restart on.
            logger.error("configuration refused, not starting: \(error)")
            throw ExitCode(Self.configurationExitCode)
        }
        let loop = try SDEventLoop()
        let probe = SysfsDeviceProbe(root: sysfsRoot)
        let watcher: KernelWatcher
        do {
            watcher = try KernelWatcher(
                receiveBufferSize: receiveBuffer, loop: loop,
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
            throw ValidationError("cannot open the netlink socket: \(error)")
        }
        // The state directory holds the policy and the SIM-key secret: private to the daemon. systemd makes it
        // (StateDirectory=); by hand it may be missing.
        do {
            try FileManager.default.createDirectory(
                atPath: stateDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            logger.warning("cannot create the state directory \(stateDir): \(error)")
        }
        // Before anything in the directory is read or written: a second daemon must not touch the first one's files.
        let stateLock: StateDirectoryLock
        do {
            stateLock = try StateDirectoryLock(directory: stateDir)
        } catch {
            logger.error("not starting: \(error)")
            throw ExitCode(1)
        }
        let store = PolicyStore(stateDirectory: stateDir)
        let (policy, loadProblem) = loadPolicy(store, logger: logger)
        let startTime = StateWriters.wallSecondsNow()
        let counters = DaemonCounters()
        let writers = StateWriters.load(
            configuration: configuration, stateDirectory: stateDir, counters: counters, logger: logger)
        let stateWriter = StateWriterService(writers: writers, logger: logger)
        let fanOut = try FanOut(loop: loop)
        let hub = PathHub(
            evaluator: PathEvaluator(classifier: configuration.classifier), context: NetworkContext(policy: policy),
            logger: logger, fanOut: fanOut.deliver, flowQueriesChanged: { watcher.setFlowQueries($0) },
            history: writers.history, counters: counters, afterUpdate: { stateWriter.changed() })
        writers.configure(configuration, hub: hub, version: Self.version, startTime: startTime)
        let policyController = PolicyController(
            hub: hub, store: store, authorizer: Authorizer(adminGroup: configuration.adminGroup),
            policyFile: store.path, loadProblem: loadProblem, loop: loop, logger: logger)
        let router = CallRouter(hub: hub, policy: policyController, version: Self.version)
        let notifier = SystemdNotifier()
        let limit = ConnectionLimit(
            maximum: ConnectionLimit.fittingDescriptorLimit(requested: maxClients),
            maximumPerUser: maxClientsPerUser, logger: logger)
        let server = try VarlinkServer(
            socketPath: socket, inheritedSocket: inheritedListeningSocket(path: socket), router: router,
            connectionLimit: limit, interestLimit: InterestLimit(maximumPerUser: maxWatchesPerUser, logger: logger),
            mainLoop: loop, logger: logger)
        let reload = ReloadService(
            loader: loader,
            apply: { configuration in
                hub.setEvaluator(PathEvaluator(classifier: configuration.classifier))
                policyController.setAuthorizer(Authorizer(adminGroup: configuration.adminGroup))
                writers.configure(configuration, hub: hub, version: Self.version, startTime: startTime)
            }, notifier: notifier, logger: logger)
        let hints = NetworkHintsService(
            hub: hub, loop: loop, leases: MeteredLeaseDetector(networkdLeaseDirectory: networkdLeases),
            portalFiles: CaptivePortalFiles(networkdLinkDirectory: networkdLinks), sysfsRoot: sysfsRoot,
            sysfsModems: SysfsModemIdentitySource(), usesSystemBus: !noSystemBus, systemBusAddress: systemBus,
            stateDirectory: stateDir, logger: logger)
        let resolver = ResolverService(
            reader: ResolverConfigurationReader(resolvConf: resolvConf, resolvedDirectory: resolvedDir), hub: hub,
            loop: loop, logger: logger)
        let wifi = WiFiIdentityService(source: NL80211IdentityWatcher(loop: loop), hub: hub, logger: logger)
        let wifiQuality = WiFiQualityService(source: NL80211QualityWatcher(loop: loop), hub: hub, logger: logger)
        var failure: (any Error)?
        // Before the kernel's first snapshot, so that the path it yields already has its resolvers.
        resolver.start()
        KernelWatchService(
            watcher: watcher, hub: hub, logger: logger, afterBatch: { hints.kernelChanged() },
            afterFirstSnapshot: {
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
        ).start()
        hints.start()
        // Without Wi-Fi (no nl80211) this does nothing; the daemon goes on.
        wifi.start()
        wifiQuality.start()
        let signals = [
            try reload.start(on: loop),
            try loop.onSignal(SIGTERM) { loop.exit() },
            try loop.onSignal(SIGINT) { loop.exit() },
        ]
        loop.run()
        notifier.notify("STOPPING=1")
        withExtendedLifetime(signals) {}
        server.stop()
        watcher.stop()
        wifi.stop()
        wifiQuality.stop()
        resolver.stop()
        hints.stop()
        stateWriter.stop()
        withExtendedLifetime(stateLock) {}
        if let failure { throw failure }
    }

    /// `--check-config`: says whether the daemon would accept the file, as `ExecReload=` and the package's
    /// postinst ask before they make a running pathmond read it.
    private func check(_ loader: ConfigurationLoader) throws {
        do {
            let (_, warnings) = try loader.load()
            for warning in warnings { printToStandardError("warning: \(warning)") }
            print("\(loader.path ?? "no configuration file (built-in rules)"): accepted")
        } catch {
            printToStandardError("\(error)")
            throw ExitCode(Self.configurationExitCode)
        }
    }

    private func printToStandardError(_ line: String) {
        _ = try? FileDescriptor.standardError.writeAll((line + "\n").utf8)
    }

    /// Loads the policy. A damaged file does not stop the daemon: it was kept aside, what could be salvaged is in
    /// force, and the problem is logged here and shown by `pathctl status`.
    private func loadPolicy(_ store: PolicyStore, logger: Logger) -> (Policy, String?) {
        do {
            let (policy, report) = try store.load()
            if let report {
                if case .newerVersion = report.problem {
                    logger.error("policy file written by a newer pathmond, left untouched: \(report)")
                } else {
                    logger.error("policy file damaged: \(report)")
                }
                return (policy, "\(report)")
            }
            logger.info("policy loaded", metadata: ["networks": "\(policy.networks.count)", "file": "\(store.path)"])
            return (policy, nil)
        } catch {
            logger.error("cannot load the policy: \(error); starting with none, and saving is refused until fixed")
            return (Policy(), "\(error)")
        }
    }

    /// Log lines for the journal when stderr is the journal (priorities, no timestamps), else for a terminal.
    private func bootstrapLogging() {
        let level = logLevel
        let journal = StandardErrorLogHandler.standardErrorIsJournal(
            environment: ProcessInfo.processInfo.environment)
        LoggingSystem.bootstrap { _ in
            StandardErrorLogHandler(style: journal ? .journal : .terminal, logLevel: level)
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
