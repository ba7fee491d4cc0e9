// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Logging
import PathModel
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

    @Option(
        help: ArgumentHelp(
            "A CA bundle to verify captive-portal APIs with instead of the system's (tests).", visibility: .hidden))
    var portalCAFile: String?

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
            logger.error("configuration refused, not starting: \(error)", metadata: error.journalMetadata)
            throw ExitCode(Self.configurationExitCode)
        }
        try Daemon(options: daemonOptions, configuration: configuration, loader: loader, logger: logger).run()
    }

    /// The command line's part of the daemon's set-up.
    var daemonOptions: DaemonOptions {
        DaemonOptions(
            socket: socket, stateDirectory: stateDir, maxClients: maxClients, maxClientsPerUser: maxClientsPerUser,
            maxWatchesPerUser: maxWatchesPerUser, receiveBuffer: receiveBuffer, sysfsRoot: sysfsRoot,
            networkdLeases: networkdLeases, networkdLinks: networkdLinks, resolvConf: resolvConf,
            resolvedDirectory: resolvedDir, portalCAFile: portalCAFile,
            systemBus: systemBus, usesSystemBus: !noSystemBus, version: Self.version)
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

    /// Log lines for the journal when stderr is the journal (priorities, no timestamps), else for a terminal.
    private func bootstrapLogging() {
        let level = logLevel
        let environment = ProcessInfo.processInfo.environment
        let native = JournalLogHandler.journalIsThere(environment: environment)
        let journal = StandardErrorLogHandler.standardErrorIsJournal(environment: environment)
        LoggingSystem.bootstrap { _ in
            if native { return JournalLogHandler(identifier: "pathmond", logLevel: level) }
            return StandardErrorLogHandler(style: journal ? .journal : .terminal, logLevel: level)
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
