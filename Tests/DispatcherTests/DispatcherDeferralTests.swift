// SPDX-License-Identifier: Apache-2.0
import Foundation
import Logging
import PathModel
import PathProtocol
import SDEvent
import Testing

@testable import pathmond_dispatcher

/// The dispatcher's deferred runs on a real sd-event loop, with systemd stood in for: a state file of 10,000 stale
/// units leaves room for a real one, which starts as soon as the path is cheap; units systemd does not have cost no
/// spacing; a transient unit's deferral goes when the unit goes; and who may defer what.
@Suite struct DispatcherDeferralTests {
    static let cheap = SystemPolicyGate.Verdict(isOnline: true, isUnmetered: true)
    static let expensive = SystemPolicyGate.Verdict(isOnline: true, isUnmetered: false)

    /// A dispatcher on a loop of its own, with no settle or grace time.
    final class Harness: @unchecked Sendable {
        let loop: SDEventLoop
        let units: StandInUnits
        let dispatcher: Dispatcher

        init(units: StandInUnits, store: DeferralStore? = nil) throws {
            loop = try SDEventLoop.startedOnNewThread(name: "test-dispatch")
            self.units = units
            let loop = self.loop
            dispatcher =
                loop.sync {
                    UncheckedTransfer(
                        Dispatcher(
                            loop: loop, units: units, timing: .init(settle: .zero, grace: .zero), store: store,
                            logger: Logger(label: "test")))
                }.value
        }

        deinit { loop.exit() }

        func onLoop<Result: Sendable>(_ job: @escaping @Sendable (Dispatcher) -> Result) -> Result {
            let dispatcher = UncheckedTransfer(self.dispatcher)
            return loop.sync { job(dispatcher.value) }
        }

        var deferredUnits: [String] { onLoop { $0.book.deferrals.map(\.unit) } }

        /// A DeferRun call from `processID` running as `userID`; the reply's error name, or nil.
        func deferRun(processID: Int32, userID: UInt32) -> String? {
            let codec = VarlinkCodec()
            let frame = Array(
                codec.encode(
                    VarlinkCallWithParameters(
                        method: DispatcherProtocol.Method.deferRun.rawValue,
                        parameters: DispatcherProtocol.DeferParameters())
                ).dropLast())
            return onLoop { dispatcher in
                let reply = dispatcher.answer(
                    .init(peerUserID: userID, peerProcessID: processID, frame: frame))
                return (try? codec.decode(VarlinkReplyHeader.self, from: Array(reply.prefix { $0 != 0 })))?.error
            }
        }

        /// Waits until `condition` holds, at most `seconds`.
        func eventually(_ seconds: Double, _ condition: () -> Bool) -> Bool {
            let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
            while !condition() {
                if ContinuousClock.now > deadline { return false }
                usleep(10_000)
            }
            return true
        }
    }

    static func stateDirectory() throws -> String {
        let path = "/tmp/pmdispatch-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func tenThousandStaleUnitsLeaveRoomForARealRunThatStartsWhenCheap() throws {
        let directory = try Self.stateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = DeferralStore(directory: directory, logger: Logger(label: "test"))
        let stale = (0..<10_000).map { DeferralBook.Deferral(unit: "stale-\($0).service", since: 1_000 + Int64($0)) }
        let entries = stale.map { "{\"since\":\($0.since),\"skips\":1,\"unit\":\"\($0.unit)\"}" }
        try "{\"deferred\":[\(entries.joined(separator: ","))],\"version\":1}\n".write(
            toFile: store.path, atomically: false, encoding: .utf8)
        let units = StandInUnits()
        let harness = try Harness(units: units, store: store)
        harness.onLoop { $0.observe(Self.expensive) }
        harness.onLoop { $0.followUnits() }
        #expect(harness.deferredUnits.isEmpty)
        #expect(store.load().deferrals.isEmpty)

        // A unit with User=nobody, as its ExecCondition= process: deferred without "+".
        units.runCondition(of: "real.service", processID: 4242, userID: 65534)
        #expect(harness.deferRun(processID: 4242, userID: 65534) == nil)
        #expect(harness.deferredUnits == ["real.service"])
        let turnedCheap = ContinuousClock.now
        harness.onLoop { $0.observe(Self.cheap) }
        #expect(harness.eventually(5) { units.startTime(of: "real.service") != nil })
        if let started = units.startTime(of: "real.service") {
            #expect(started - turnedCheap < .seconds(1))
        }
        #expect(units.startedUnits == ["real.service"])
        #expect(harness.deferredUnits.isEmpty)
    }

    /// systemd cannot say beforehand (the bus failed) and answers NoSuchUnit at the start: each is dropped at once,
    /// and the real unit behind fifty of them starts without fifty spacings (100 s).
    @Test func unitsSystemdDoesNotHaveCostNoSpacing() throws {
        let gone = (0..<50).map { "gone-\($0).service" }
        let units = StandInUnits(known: ["real.service"], unsure: Set(gone))
        let harness = try Harness(units: units)
        harness.onLoop { dispatcher in
            dispatcher.book = DeferralBook(
                deferrals: (gone + ["real.service", "after.service"]).enumerated().map {
                    .init(unit: $1, since: Int64($0))
                })
        }
        units.state.withLock { _ = $0.known.insert("after.service") }
        let turnedCheap = ContinuousClock.now
        harness.onLoop { $0.observe(Self.cheap) }
        #expect(harness.eventually(5) { units.startTime(of: "real.service") != nil })
        if let started = units.startTime(of: "real.service") {
            #expect(started - turnedCheap < .seconds(1))
        }
        // The next real start is spaced.
        #expect(harness.eventually(5) { units.startTime(of: "after.service") != nil })
        if let first = units.startTime(of: "real.service"), let second = units.startTime(of: "after.service") {
            #expect(second - first >= Dispatcher.spacing - .milliseconds(50))
        }
        #expect(units.startedUnits == ["real.service", "after.service"])
    }

    /// A transient unit (systemd-run) deferred, then garbage-collected: its deferral goes with it; a unit still on
    /// disk that systemd merely unloaded stays.
    @Test func aTransientUnitsDeferralGoesWhenTheUnitGoes() throws {
        let units = StandInUnits(known: ["run-u7.service", "kept.service"])
        let harness = try Harness(units: units)
        harness.onLoop { dispatcher in
            dispatcher.book = DeferralBook(
                deferrals: [.init(unit: "run-u7.service", since: 1), .init(unit: "kept.service", since: 2)])
            dispatcher.followUnits()
        }
        #expect(harness.deferredUnits == ["run-u7.service", "kept.service"])
        units.state.withLock { _ = $0.known.remove("run-u7.service") }
        let handler = units.state.withLock { $0.removalHandler }
        harness.onLoop { _ in
            handler?("kept.service")
            handler?("run-u7.service")
        }
        #expect(harness.deferredUnits == ["kept.service"])
    }

    /// Who may defer: a non-root caller only as the service's condition process itself, running as the uid it
    /// connected with; root also from a wrapper in the service. Listing and forgetting are root's.
    @Test func onlyAServicesConditionProcessDefers() throws {
        let units = StandInUnits()
        let harness = try Harness(units: units)
        let notACondition = DispatcherProtocol.ErrorName.notACondition
        harness.onLoop { $0.observe(Self.expensive) }
        units.runCondition(of: "timer-job.service", processID: 100, userID: 65534)
        // A scope (systemd-run --scope as nobody): not a service.
        units.state.withLock { $0.processes[200] = ProcessFacts(unit: "run-r1.scope", userID: 65534) }
        // Another process of the service (a child of the condition, or the service outside its condition).
        units.state.withLock { $0.processes[101] = ProcessFacts(unit: "timer-job.service", userID: 65534) }
        // A service that is running, not in its condition.
        units.state.withLock {
            $0.processes[300] = ProcessFacts(unit: "daemon.service", userID: 65534)
            $0.conditions["daemon.service"] = UnitConditionState(subState: "running", controlProcessID: 0)
        }
        #expect(harness.deferRun(processID: 200, userID: 65534) == notACondition)
        #expect(harness.deferRun(processID: 101, userID: 65534) == notACondition)
        #expect(harness.deferRun(processID: 300, userID: 65534) == notACondition)
        // The condition's pid, claimed by a connection of another user (a pid reused since the connect).
        #expect(harness.deferRun(processID: 100, userID: 1000) == notACondition)
        // A process in no unit.
        #expect(harness.deferRun(processID: 999, userID: 65534) == notACondition)
        // A desktop app: in the user's own systemd, refused before systemd is asked anything (the stand-in would
        // even say it runs its condition, which a real user@.service never does).
        units.runCondition(of: "user@1000.service", processID: 600, userID: 1000)
        #expect(harness.deferRun(processID: 600, userID: 1000) == notACondition)
        #expect(harness.deferredUnits.isEmpty)
        #expect(harness.deferRun(processID: 100, userID: 65534) == nil)
        // Root, from a wrapper script in the unit (not the ControlPID): trusted as before.
        units.runCondition(of: "root-job.service", processID: 500, userID: 0)
        units.state.withLock { $0.processes[501] = ProcessFacts(unit: "root-job.service", userID: 0) }
        #expect(harness.deferRun(processID: 501, userID: 0) == nil)
        #expect(harness.deferredUnits == ["timer-job.service", "root-job.service"])

        let codec = VarlinkCodec()
        for (method, userID, expected) in [
            (DispatcherProtocol.Method.listDeferred, UInt32(65534), DispatcherProtocol.ErrorName.permissionDenied),
            (.listDeferred, 0, nil),
        ] as [(DispatcherProtocol.Method, UInt32, String?)] {
            let frame = Array(codec.encode(VarlinkCallWithParameters<NoParameters>(method: method.rawValue)).dropLast())
            let error = harness.onLoop { dispatcher in
                let reply = dispatcher.answer(.init(peerUserID: userID, peerProcessID: 100, frame: frame))
                return (try? codec.decode(VarlinkReplyHeader.self, from: Array(reply.prefix { $0 != 0 })))?.error
            }
            #expect(error == expected)
        }
    }
}
