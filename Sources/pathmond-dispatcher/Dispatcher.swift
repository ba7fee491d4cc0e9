// SPDX-License-Identifier: Apache-2.0
import DaemonRuntime
import Dispatch
import Logging
import PathModel
import PathMonitor
import SDEvent

#if canImport(Glibc)
    import Glibc
#endif

/// The system policy's hands: follows pathmond's path, damps it through a `SystemPolicyGate`, and starts and stops
/// `pathmond-online.target` and `pathmond-unmetered.target` through systemd's manager on the system bus.
///
/// It also keeps the runs `pathctl check` deferred on a metered path and starts them when the path turns cheap
/// (`Dispatcher+Deferrals.swift`), registered on a socket any unit's condition may reach (`DispatcherServer`; who
/// may register what is `Dispatcher+Callers.swift`).
///
/// Runs in `pathmond-dispatcher` (pathmond-dispatcher.service, root): pathmond itself stays unprivileged, and this
/// process holds no socket but its Varlink client connection to pathmond and its system bus connection.
///
/// Threading invariant (why the path handler hops): the gate, the timer and the bus are used only on `loop`'s
/// thread; the path monitor delivers on its own queue, and each delivery is posted to the loop.
final class Dispatcher {
    static let onlineTarget = "pathmond-online.target"
    static let unmeteredTarget = "pathmond-unmetered.target"

    let loop: SDEventLoop
    let units: any UnitControl
    let logger: Logger
    private(set) var gate: SystemPolicyGate
    private var timer: SDEventSource?
    private var monitor: NetworkPathMonitor?
    /// The last verdict on the path itself (undamped); nil until the first.
    private(set) var lastVerdict: SystemPolicyGate.Verdict??
    /// The deferred runs, and where they are kept (nil: in memory only, for tests).
    var book: DeferralBook
    let store: DeferralStore?
    /// Pending start of the next deferred run (`Dispatcher+Deferrals.swift`).
    var deferredRunTimer: SDEventSource?

    /// Refusals any local user can cause, at most one line a minute each: deferrals, and lists or forgets.
    let refusals: ThrottledLog
    let forbidden: ThrottledLog

    init(
        loop: SDEventLoop, units: any UnitControl, timing: SystemPolicyGate.Timing, store: DeferralStore?,
        logger: Logger
    ) {
        self.loop = loop
        self.units = units
        self.refusals = ThrottledLog(logger: logger)
        self.forbidden = ThrottledLog(logger: logger)
        self.logger = logger
        self.gate = SystemPolicyGate(timing: timing)
        self.store = store
        self.book = store?.load() ?? DeferralBook()
    }

    /// CLOCK_MONOTONIC, the clock sd-event's timers use.
    static func now() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    /// Follows the path served on `socketPath`, and systemd's units. Only on the loop.
    func start(socketPath: String) {
        followUnits()
        let monitor = NetworkPathMonitor(socketPath: socketPath, retryDelay: .seconds(1))
        let dispatcher = UncheckedTransfer(self)
        let loop = self.loop
        monitor.start(queue: DispatchQueue(label: "pathmond.dispatcher.path")) { update in
            let verdict: SystemPolicyGate.Verdict?
            switch update {
            case .path(let path): verdict = SystemPolicyGate.Verdict(path)
            case .unavailable: verdict = nil
            }
            loop.execute { dispatcher.value.observe(verdict) }
        }
        self.monitor = monitor
    }

    func stop() {
        monitor?.cancel()
        monitor = nil
        timer = nil
        deferredRunTimer = nil
    }

    /// New settle and grace times (a reload). Only on the loop.
    func reconfigure(_ timing: SystemPolicyGate.Timing) {
        guard timing != gate.timing else { return }
        logger.notice(
            "system policy timing changed",
            metadata: ["settle": "\(TimeSpan.format(timing.settle))", "grace": "\(TimeSpan.format(timing.grace))"])
        carryOut(gate.reconfigure(timing, at: Self.now()))
        rearm()
    }

    /// A verdict on the path (from the monitor; tests call it directly). Only on the loop.
    func observe(_ verdict: SystemPolicyGate.Verdict?) {
        if lastVerdict != .some(verdict) {
            lastVerdict = .some(verdict)
            logger.debug("path verdict", metadata: ["verdict": "\(verdict.map { "\($0)" } ?? "pathmond unreachable")"])
        }
        carryOut(gate.observe(verdict, at: Self.now()))
        rearm()
        // Cheap again within the grace (the damped state never left unmetered): deferred runs go once it settles.
        if verdict?.isUnmetered == true && gate.isUnmetered == true { scheduleDeferredRuns(after: gate.timing.settle) }
    }

    private func rearm() {
        timer = nil
        guard let due = gate.nextDecision else { return }
        let dispatcher = UncheckedTransfer(self)
        do {
            timer = try loop.schedule(after: max(.zero, due - Self.now())) {
                dispatcher.value.fire()
            }
        } catch {
            logger.error("cannot arm the settle timer: \(error); the next path change decides instead")
        }
    }

    private func fire() {
        timer = nil
        carryOut(gate.advance(to: Self.now()))
        rearm()
    }

    private func carryOut(_ decisions: [SystemPolicyGate.Decision]) {
        for decision in decisions {
            switch decision {
            case .online(let online):
                apply(
                    online, target: Self.onlineTarget,
                    why: online ? "the path is satisfied" : "the path is not satisfied")
            case .unmetered(let unmetered):
                apply(
                    unmetered, target: Self.unmeteredTarget,
                    why: unmetered
                        ? "the path is satisfied and neither expensive nor constrained"
                        : "the path is expensive, constrained or not satisfied")
                if unmetered { scheduleDeferredRuns() }
            }
        }
    }

    private func apply(_ active: Bool, target: String, why: String) {
        let timing = gate.timing
        let held = TimeSpan.format(active ? timing.settle : timing.grace)
        do {
            let job = try units.perform(active ? .start : .stop, unit: target)
            logger.notice(
                "\(why) (held \(held)): \(active ? "starting" : "stopping") \(target)", metadata: ["job": "\(job)"])
        } catch {
            logger.error("cannot \(active ? "start" : "stop") \(target): \(error)")
        }
    }
}
