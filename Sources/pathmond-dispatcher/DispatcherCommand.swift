// SPDX-License-Identifier: Apache-2.0
import DBus
import DaemonRuntime
import Logging
import PathModel
import ProgramArguments
import SDEvent

#if canImport(Glibc)
    import Glibc
#endif

/// pathmond-dispatcher: the root helper of pathmond-dispatcher.service. Follows the path pathmond serves on
/// `--socket` and starts and stops the path's targets (see `Dispatcher`). Reads only `[discretionary]` of the
/// configuration, and again on SIGHUP. Its own program, as systemd keeps wait-online its own: pathmond itself
/// stays unprivileged and links no client library.
@main
struct DispatcherCommand {
    static let version = "0.1.0"

    let options: DispatcherCommandLine

    static func main() {
        guard let arguments = ProgramArguments.afterName() else {
            DaemonProcess.printToStandardError("Error: no command line to read (started with an empty argv)")
            exit(CommandLineError.usageExitCode)
        }
        let options: DispatcherCommandLine
        do {
            switch try DispatcherCommandLine.parse(arguments) {
            case .help: return print(DispatcherCommandLine.helpText)
            case .version: return print(version)
            case .run(let parsed): options = parsed
            }
        } catch {
            DaemonProcess.printToStandardError("Error: \(error)\n" + DispatcherCommandLine.usageHint)
            exit(CommandLineError.usageExitCode)
        }
        do {
            try DispatcherCommand(options: options).run()
        } catch let failure as DaemonExit {
            if let message = failure.message { DaemonProcess.printToStandardError("Error: \(message)") }
            DaemonProcess.exit(status: failure.status)
        } catch {
            DaemonProcess.printToStandardError("Error: \(error)")
            DaemonProcess.exit(status: EXIT_FAILURE)
        }
    }

    func run() throws {
        // Before any thread exists, so that every thread inherits the mask: these signals arrive only through the
        // loop's signalfd.
        SDEventLoop.blockSignals([SIGTERM, SIGINT, SIGHUP])
        signal(SIGPIPE, SIG_IGN)
        DaemonProcess.bootstrapLogging(identifier: "pathmond-dispatcher", level: options.logLevel)
        let logger = Logger(label: "pathmond-dispatcher")
        let loader = ConfigurationLoader(explicitPath: options.config)
        let configuration: Configuration
        do {
            configuration = try loader.load().0
        } catch {
            logger.error("configuration refused, not starting: \(error)", metadata: error.journalMetadata)
            throw DaemonExit(status: DaemonExit.configurationExitCode)
        }
        let loop = try SDEventLoop()
        let bus: BusConnection
        do {
            bus = try BusConnection(address: options.systemBus, loop: loop, callTimeout: .seconds(10))
            // A lost bus (dbus-daemon restarted) ends the process; the unit's Restart= brings it back connected.
            try bus.start { error in
                logger.error("the system bus went away (\(error)); exiting to be restarted")
                loop.exit(code: 1)
            }
        } catch {
            logger.error("cannot connect to the system bus: \(error)")
            throw DaemonExit(status: 1)
        }
        let dispatcher = Dispatcher(
            loop: loop, units: UnitManager(bus: bus), timing: configuration.systemPolicyTiming,
            store: DeferralStore(directory: options.dispatcherStateDir, logger: logger), logger: logger)
        let server = DispatcherServer(
            path: options.dispatcherSocket, loop: loop, logger: logger, handle: { dispatcher.answer($0) })
        do {
            try server.start()
        } catch {
            logger.error("not starting: \(error)")
            throw DaemonExit(status: 1)
        }
        let notifier = SystemdNotifier()
        let reload = ReloadService(
            loader: loader, apply: { dispatcher.reconfigure($0.systemPolicyTiming) }, notifier: notifier,
            logger: logger, readyStatus: "Following the path for pathmond's targets", loop: loop)
        dispatcher.start(socketPath: options.socket)
        let timing = configuration.systemPolicyTiming
        logger.notice(
            "following the path on \(options.socket)",
            metadata: ["settle": "\(TimeSpan.format(timing.settle))", "grace": "\(TimeSpan.format(timing.grace))"])
        notifier.notify("READY=1\nSTATUS=Following the path for pathmond's targets")
        try reload.start()
        let signals = [
            try loop.onSignal(SIGTERM) { loop.exit() },
            try loop.onSignal(SIGINT) { loop.exit() },
        ]
        let code = loop.run()
        notifier.notify("STOPPING=1")
        server.stop()
        dispatcher.stop()
        reload.stop()
        withExtendedLifetime((signals, bus)) {}
        if code != 0 { throw DaemonExit(status: code) }
    }
}
