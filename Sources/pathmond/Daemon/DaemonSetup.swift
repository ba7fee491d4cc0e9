// SPDX-License-Identifier: Apache-2.0
import Logging
import Netlink
import PathModel
import PolicyStore
import SDEvent

#if canImport(Glibc)
    import Glibc
#endif

/// What every part of the daemon is built from, made before any part: the options, the configuration, the main
/// loop, the netlink socket (opened first: a refusal there is a usage error, exit 64) and the policy the state
/// directory holds.
struct DaemonSetup {
    let options: DaemonOptions
    let configuration: Configuration
    let loader: ConfigurationLoader
    let logger: Logger
    let loop: SDEventLoop
    let watcher: KernelWatcher
    let notifier = SystemdNotifier()
    let counters = DaemonCounters()
    /// The daemon's start, in seconds since the epoch, for the metrics file.
    let startTime = StateWriters.wallSecondsNow()
    let store: PolicyStore
    /// The policy loaded at start, and what was wrong with its file, if anything (`pathctl status` shows it).
    let policy: Policy
    let policyProblem: String?

    /// Loads the policy; the state directory must be locked first (`Daemon.lockStateDirectory`).
    init(
        options: DaemonOptions, configuration: Configuration, loader: ConfigurationLoader, logger: Logger,
        loop: SDEventLoop, watcher: KernelWatcher
    ) {
        self.options = options
        self.configuration = configuration
        self.loader = loader
        self.logger = logger
        self.loop = loop
        self.watcher = watcher
        store = PolicyStore(stateDirectory: options.stateDirectory)
        (policy, policyProblem) = Self.loadPolicy(store, logger: logger)
    }

    /// The netlink socket, read on `loop`; a refusal is a usage error (exit 64).
    static func openKernelWatcher(options: DaemonOptions, loop: SDEventLoop, logger: Logger) throws -> KernelWatcher {
        let probe = SysfsDeviceProbe(root: options.sysfsRoot)
        do {
            return try KernelWatcher(
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
