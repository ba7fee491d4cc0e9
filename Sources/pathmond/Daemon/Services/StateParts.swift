// SPDX-License-Identifier: Apache-2.0
import PathModel
import SDEvent

/// The policy loop (`pathmond-policy`): policy changes, the usage file's writes and memory trims run there, off the
/// main loop. Nothing stops its thread, which ends with the process: a policy change is answered only once saved,
/// and the usage file's last write is made by `UsageService.stop()` on the stopping thread.
final class PolicyWorker: DaemonService {
    static var needs: [any DaemonService.Type] { [] }
    let loop: SDEventLoop

    private init(loop: SDEventLoop) { self.loop = loop }

    static func make(_ parts: ServiceParts) throws -> PolicyWorker {
        PolicyWorker(loop: try PolicyController.startWorker())
    }

    func start() {}
    func stop() {}
}

/// The history file and the metrics textfile, brought up to date by a thread of their own (`StateWriterService`).
/// Every part that changes what they show needs this one, so its final flush comes after every other part stopped.
final class StateFileService: DaemonService {
    static var needs: [any DaemonService.Type] { [] }
    let writers: StateWriters
    let writer: StateWriterService

    private init(writers: StateWriters, writer: StateWriterService) {
        self.writers = writers
        self.writer = writer
    }

    static func make(_ parts: ServiceParts) throws -> StateFileService {
        let setup = parts.setup
        let writers = StateWriters.load(
            configuration: setup.configuration, stateDirectory: setup.options.stateDirectory,
            counters: setup.counters, logger: setup.logger)
        return StateFileService(writers: writers, writer: StateWriterService(writers: writers, logger: setup.logger))
    }

    /// Nothing to start: the writer's thread starts with the first change, so a daemon that never owes a write
    /// never has it.
    func start() {}

    /// Writes what is owed.
    func stop() { writer.stop() }
}

/// The hub: the kernel's state, the policy and the path derived from them, with the hooks run after each update.
final class HubService: DaemonService {
    static var needs: [any DaemonService.Type] { [StateFileService.self] }
    let hub: PathHub
    /// Run after every update, after the state files are told: the parts that follow the path add to it.
    let updates: HubUpdates

    private init(hub: PathHub, updates: HubUpdates) {
        self.hub = hub
        self.updates = updates
    }

    static func make(_ parts: ServiceParts) throws -> HubService {
        let setup = parts.setup
        let files = try parts.get(StateFileService.self)
        let fanOut = try FanOut(loop: setup.loop)
        let watcher = setup.watcher
        let writer = files.writer
        let updates = HubUpdates()
        let hub = PathHub(
            evaluator: PathEvaluator(classifier: setup.configuration.classifier),
            context: NetworkContext(policy: setup.policy), logger: setup.logger, fanOut: fanOut.deliver,
            flowQueriesChanged: { watcher.changeFlowQueries($0, version: $1) }, history: files.writers.history,
            counters: setup.counters,
            afterUpdate: {
                writer.changed()
                updates()
            })
        return HubService(hub: hub, updates: updates)
    }

    func start() {}
    func stop() {}
}

/// Declared a part in Daemon+Usage.swift, with how its meter is loaded.
extension UsageService {
    static var needs: [any DaemonService.Type] { [HubService.self, StateFileService.self, PolicyWorker.self] }

    static func make(_ parts: ServiceParts) throws -> UsageService {
        let setup = parts.setup
        let hub = try parts.get(HubService.self)
        let writer = try parts.get(StateFileService.self).writer
        let usage = Daemon.usageService(
            loop: setup.loop, hub: hub.hub, stateDirectory: setup.options.stateDirectory,
            writerLoop: try parts.get(PolicyWorker.self).loop,
            interval: setup.configuration.usageInterval ?? UsageService.defaultInterval, logger: setup.logger,
            counted: { writer.changed() })
        hub.updates.add { usage.interfacesChanged() }
        return usage
    }
}

/// The configuration's `[history]` and `[metrics]` in force: what the state files keep and show, from the hub and
/// the usage meter. Put in force at start and by each reload.
final class StateFileSettings: DaemonService {
    static var needs: [any DaemonService.Type] { [StateFileService.self, HubService.self, UsageService.self] }
    private let files: StateFileService
    private let hub: PathHub
    private let usage: UsageService
    private let version: String
    private let startTime: Double

    private init(files: StateFileService, hub: PathHub, usage: UsageService, version: String, startTime: Double) {
        self.files = files
        self.hub = hub
        self.usage = usage
        self.version = version
        self.startTime = startTime
    }

    static func make(_ parts: ServiceParts) throws -> StateFileSettings {
        let settings = StateFileSettings(
            files: try parts.get(StateFileService.self), hub: try parts.get(HubService.self).hub,
            usage: try parts.get(UsageService.self), version: parts.setup.options.version,
            startTime: parts.setup.startTime)
        settings.apply(parts.setup.configuration)
        return settings
    }

    func apply(_ configuration: Configuration) {
        files.writers.configure(configuration, hub: hub, usage: usage, version: version, startTime: startTime)
    }

    func start() {}
    func stop() {}
}

extension PolicyController: DaemonService {
    static var needs: [any DaemonService.Type] { [HubService.self, PolicyWorker.self] }

    static func make(_ parts: ServiceParts) throws -> PolicyController {
        let setup = parts.setup
        return PolicyController(
            hub: try parts.get(HubService.self).hub, store: setup.store,
            authorizer: Authorizer(adminGroup: setup.configuration.adminGroup), policyFile: setup.store.path,
            loadProblem: setup.policyProblem, loop: try parts.get(PolicyWorker.self).loop, hubLoop: setup.loop,
            logger: setup.logger)
    }

    func start() {}
    func stop() {}
}
