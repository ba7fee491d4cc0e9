// SPDX-License-Identifier: Apache-2.0
import Logging
import PathModel
import ProgramArguments
import SDEvent
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// pathmond: follows the kernel's links, addresses and routes and serves the network path over Varlink.
@main
struct PathmondCommand {
    static let version = "0.1.0"

    /// The parsed command line (see `DaemonCommandLine` for every option and its default).
    let options: DaemonCommandLine

    static func main() {
        let options: DaemonCommandLine
        // Without its command line pathmond would serve the default socket and state directory, or run as the
        // dispatcher's opposite: it says so and stops instead.
        guard let arguments = ProgramArguments.afterName() else {
            printToStandardError("Error: no command line to read (started with an empty argv)")
            exit(DaemonCommandLine.usageExitCode)
        }
        do {
            switch try DaemonCommandLine.parse(arguments) {
            case .help: return print(DaemonCommandLine.helpText)
            case .version: return print(version)
            case .run(let parsed): options = parsed
            }
        } catch {
            printToStandardError("Error: \(error)\n" + DaemonCommandLine.usageHint)
            exit(DaemonCommandLine.usageExitCode)
        }
        do {
            try PathmondCommand(options: options).run()
        } catch let failure as DaemonExit {
            if let message = failure.message { printToStandardError("Error: \(message)") }
            DaemonProcess.exit(status: failure.status)
        } catch {
            printToStandardError("Error: \(error)")
            DaemonProcess.exit(status: EXIT_FAILURE)
        }
    }

    /// sysexits.h's EX_CONFIG: the unit does not restart on it (RestartPreventExitStatus=), since a restart reads
    /// the same file again.
    static let configurationExitCode = DaemonExit.configurationExitCode

    func run() throws {
        // First: the helper starts from a clean slate, as its own unit would start it.
        if options.dispatcher { try DispatcherAlias.exec(options) }
        // Before any thread exists, so that every thread inherits the mask: these signals arrive only through the
        // main loop's signalfd (a SIGHUP sent while the daemon starts waits there instead of killing it).
        SDEventLoop.blockSignals([SIGTERM, SIGINT, SIGHUP])
        // A client that hangs up while a reply is written must cost an EPIPE, not the daemon.
        signal(SIGPIPE, SIG_IGN)
        DaemonProcess.bootstrapLogging(identifier: "pathmond", level: options.logLevel)
        let logger = Logger(label: "pathmond")
        if options.checkConfig {
            return try check(ConfigurationLoader(explicitPath: options.checkedFile ?? options.config))
        }
        let loader = ConfigurationLoader(explicitPath: options.config)
        var daemonOptions = options.daemon
        daemonOptions.inheritedSocket = inheritedListeningSocket(path: daemonOptions.socket)
        let configuration: Configuration
        do {
            let (loaded, warnings) = try loader.load()
            for warning in warnings { logger.warning("\(warning)") }
            configuration = loaded
        } catch {
            guard let listener = daemonOptions.inheritedSocket else {
                // Once, at err, with FILE:LINE; no usage text (the command line was fine), and an exit status the
                // unit does not restart on.
                logger.error("configuration refused, not starting: \(error)", metadata: error.journalMetadata)
                throw DaemonExit(status: Self.configurationExitCode)
            }
            // systemd's socket: held and answered with the refusal, not left to start pathmond again for every
            // client until the start limit fails it (`RefusedConfigurationServer`).
            logger.error(
                "configuration refused, not serving (every call is refused until the file is fixed and pathmond reloaded): \(error)",
                metadata: error.journalMetadata)
            let refusing = try RefusedConfigurationServer(
                listener: listener, loader: loader, refused: error, logger: logger)
            guard let fixed = try refusing.serveUntilFixed(notifier: SystemdNotifier()) else { return }
            configuration = fixed
        }
        try Daemon(options: daemonOptions, configuration: configuration, loader: loader, logger: logger).run()
    }

    /// `--check-config`: says whether the daemon would accept the file, as `ExecReload=` and the package's
    /// postinst ask before they make a running pathmond read it.
    private func check(_ loader: ConfigurationLoader) throws {
        do {
            let (_, warnings) = try loader.load()
            for warning in warnings { Self.printToStandardError("warning: \(warning)") }
            print("\(loader.path ?? "no configuration file (built-in rules)"): accepted")
        } catch {
            Self.printToStandardError("\(error)")
            throw DaemonExit(status: Self.configurationExitCode)
        }
    }

    private static func printToStandardError(_ line: String) { DaemonProcess.printToStandardError(line) }
}
