// SPDX-License-Identifier: Apache-2.0
import Locking

@testable import pathmond_dispatcher

/// systemd as the dispatcher's tests want it: the units it has, their condition processes, the processes it knows,
/// and a record of what was started. Used on the dispatcher's loop and read from the test's thread (a lock).
final class StandInUnits: UnitControl, Sendable {
    struct State {
        /// Units systemd has; `exists` answers nil (cannot say) for those in `unsure`, false for the rest.
        var known: Set<String> = []
        var unsure: Set<String> = []
        var conditions: [String: UnitConditionState] = [:]
        var processes: [Int32: ProcessFacts] = [:]
        /// Units started, with the monotonic time of the start, in order.
        var started: [(unit: String, at: ContinuousClock.Instant)] = []
        var removalHandler: (@Sendable (String?) -> Void)?
    }
    let state = Locked(State())

    struct NoSuchUnit: Error, CustomStringConvertible {
        let unit: String
        var description: String { "org.freedesktop.systemd1.NoSuchUnit: Unit \(unit) not found." }
    }

    init(known: Set<String> = [], unsure: Set<String> = []) {
        state.withLock {
            $0.known = known
            $0.unsure = unsure
        }
    }

    func perform(_ operation: UnitOperation, unit: String) throws -> String {
        let known = state.withLock { state in
            guard state.known.contains(unit) || unit.hasSuffix(".target") else { return false }
            if operation == .start { state.started.append((unit, .now)) }
            return true
        }
        guard known else { throw NoSuchUnit(unit: unit) }
        return "/org/freedesktop/systemd1/job/1"
    }

    func conditionState(of unit: String) -> UnitConditionState? { state.withLock { $0.conditions[unit] } }

    func exists(_ unit: String) -> Bool? {
        state.withLock { $0.unsure.contains(unit) ? nil : $0.known.contains(unit) }
    }

    func process(_ processID: Int32) -> ProcessFacts? { state.withLock { $0.processes[processID] } }

    func watchUnitRemovals(_ handler: @escaping (String?) -> Void) {
        let handler = UncheckedHandler(call: handler)
        state.withLock { $0.removalHandler = { handler.call($0) } }
    }

    /// Units started so far, in order, targets left out.
    var startedUnits: [String] { state.withLock { $0.started.map(\.unit).filter { !$0.hasSuffix(".target") } } }

    /// When `unit` was started, if it was.
    func startTime(of unit: String) -> ContinuousClock.Instant? {
        state.withLock { $0.started.first { $0.unit == unit }?.at }
    }

    /// Makes `processID` the ExecCondition= process of `unit`, running as `userID`.
    func runCondition(of unit: String, processID: Int32, userID: UInt32) {
        state.withLock {
            $0.known.insert(unit)
            $0.processes[processID] = ProcessFacts(unit: unit, userID: userID)
            $0.conditions[unit] = UnitConditionState(subState: "condition", controlProcessID: processID)
        }
    }
}

/// The dispatcher's handler, called only on its loop (the test posts the call there).
private struct UncheckedHandler: @unchecked Sendable {
    let call: (String?) -> Void
}
