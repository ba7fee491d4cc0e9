// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Locking
import PathModel

/// What the raw listener must see for a change to count as observed.
enum RawMatch: Sendable, Hashable {
    /// RTM_NEWLINK for the interface with IFF_UP as given.
    case link(index: Int32, up: Bool)
    /// RTM_NEWADDR or RTM_DELADDR of an IPv4 address on the interface.
    case address(added: Bool, index: Int32)
    /// RTM_NEWROUTE or RTM_DELROUTE of an IPv4 default route in the main table.
    case defaultRoute(added: Bool)

    func matches(_ message: RawMessage) -> Bool {
        switch self {
        case .link(let index, let up):
            return message.type == RTNetlink.newLink && message.index == index
                && (message.flags & RTNetlink.interfaceUp != 0) == up
        case .address(let added, let index):
            return message.type == (added ? RTNetlink.newAddress : RTNetlink.deleteAddress)
                && message.family == 2 && message.index == index
        case .defaultRoute(let added):
            return message.type == (added ? RTNetlink.newRoute : RTNetlink.deleteRoute)
                && message.family == 2 && message.prefixLength == 0 && message.table == RTNetlink.mainTable
        }
    }
}

/// The path the subscriber must see: a status and, when unsatisfied, its reason; when given, its first interface.
struct PathMatch: Sendable, Hashable, CustomStringConvertible {
    var status: PathStatus
    var reason: UnsatisfiedReason?
    /// The index of the path's first available interface (the two-uplink kind); nil: any.
    var firstInterface: Int32?

    static let satisfied = PathMatch(status: .satisfied)
    static func satisfied(via index: Int32) -> PathMatch {
        PathMatch(status: .satisfied, firstInterface: index)
    }
    static func unsatisfied(_ reason: UnsatisfiedReason) -> PathMatch {
        PathMatch(status: .unsatisfied, reason: reason)
    }

    func matches(_ path: Path) -> Bool {
        path.status == status && path.unsatisfiedReason == reason
            && (firstInterface == nil || path.availableInterfaces.first?.index == firstInterface)
    }

    var description: String {
        let text = reason.map { "\(status.rawValue)(\($0.rawValue))" } ?? status.rawValue
        return firstInterface.map { "\(text) via interface \($0)" } ?? text
    }
}

/// Arrival times of one armed change at each observer, in nanoseconds after t0; nil where it was not seen.
struct Observation: Sendable {
    var raw: UInt64?
    /// The client library's subscriber, stamped on the app's queue.
    var subscriber: UInt64?
    /// The subscriber reading the socket itself, stamped when recv returns.
    var wire: UInt64?
}

/// The meeting point of the writer (main thread), the raw listener thread and the subscriber's queue.
///
/// The writer arms an expectation and takes t0; each observer timestamps an event on arrival, before taking
/// the lock, and the first matching event at or after t0 is recorded. Events before t0 are leftovers of an
/// earlier change and never count.
final class Probe: Sendable {
    private struct State {
        var raw: RawMatch?
        var path: PathMatch?
        var t0: UInt64 = 0
        var rawAt: UInt64?
        var pathAt: UInt64?
        var wireAt: UInt64?
        /// Whether a wire observer reads: only then is its arrival awaited.
        var hasWire = false
        /// Path updates after arming that were not the one expected: should stay 0 (one update per change).
        var extraUpdates = 0
        var lastPath: Path?
        var overflows = 0
    }

    private let state = Locked(State())
    /// Signalled on every event; waiters re-check the state, so extra signals are harmless.
    private let signal = DispatchSemaphore(value: 0)

    /// Arms the expectations and returns t0, read last so that it sits right before the caller's send.
    func arm(raw: RawMatch, path: PathMatch) -> UInt64 {
        state.withLock { state in
            state.raw = raw
            state.path = path
            state.rawAt = nil
            state.pathAt = nil
            state.wireAt = nil
            state.t0 = monotonicNanoseconds()
            return state.t0
        }
    }

    /// Stops matching: updates caused by untimed restores are neither observations nor extra updates.
    func disarm() {
        state.withLock { state in
            state.raw = nil
            state.path = nil
        }
    }

    /// Called by the raw listener with the messages of one datagram and its arrival time.
    func rawArrived(_ messages: [RawMessage], at time: UInt64) {
        let matched = state.withLock { state -> Bool in
            guard let raw = state.raw, state.rawAt == nil, time >= state.t0, messages.contains(where: raw.matches)
            else { return false }
            state.rawAt = time
            return true
        }
        if matched { signal.signal() }
    }

    /// Called by the raw listener when the kernel dropped notifications (ENOBUFS).
    func rawOverflowed() {
        state.withLock { $0.overflows += 1 }
    }

    /// Called by the subscriber with every path update and its arrival time.
    func pathArrived(_ path: Path, at time: UInt64) {
        state.withLock { state in
            state.lastPath = path
            guard let expected = state.path, time >= state.t0 else { return }
            if state.pathAt == nil && expected.matches(path) {
                state.pathAt = time
            } else {
                state.extraUpdates += 1
            }
        }
        signal.signal()
    }

    /// Called by the wire observer with every path update and the time its recv returned; only the expected
    /// path's first arrival counts (the library's subscriber counts extra updates).
    func wireArrived(_ path: Path, at time: UInt64) {
        let matched = state.withLock { state -> Bool in
            guard let expected = state.path, state.wireAt == nil, time >= state.t0, expected.matches(path) else {
                return false
            }
            state.wireAt = time
            return true
        }
        if matched { signal.signal() }
    }

    /// A wire observer reads from now on (true), or no longer (false).
    func setWireObserved(_ observed: Bool) {
        state.withLock { $0.hasWire = observed }
    }

    /// Waits until every observer saw the armed change or `timeout` passes.
    func awaitObservation(timeoutNanoseconds timeout: UInt64) -> Observation {
        func observation(_ state: borrowing State) -> Observation {
            Observation(
                raw: state.rawAt.map { $0 - state.t0 }, subscriber: state.pathAt.map { $0 - state.t0 },
                wire: state.wireAt.map { $0 - state.t0 })
        }
        let complete = awaitCondition(timeoutNanoseconds: timeout) { state -> Observation? in
            guard state.rawAt != nil, state.pathAt != nil, !state.hasWire || state.wireAt != nil else { return nil }
            return observation(state)
        }
        return complete ?? state.withLock { observation($0) }
    }

    /// Waits until the subscriber's latest path matches; false on timeout.
    func awaitPath(_ expected: PathMatch, timeoutNanoseconds timeout: UInt64) -> Bool {
        awaitCondition(timeoutNanoseconds: timeout) { state in
            state.lastPath.map(expected.matches) == true ? true : nil
        } ?? false
    }

    /// The subscriber's latest path, for error messages.
    var lastPath: Path? { state.withLock { $0.lastPath } }
    var extraUpdates: Int { state.withLock { $0.extraUpdates } }
    var overflows: Int { state.withLock { $0.overflows } }

    private func awaitCondition<Result>(
        timeoutNanoseconds timeout: UInt64, _ condition: (borrowing State) -> Result?
    ) -> Result? {
        let deadline = monotonicNanoseconds() + timeout
        while true {
            if let result = state.withLock({ condition($0) }) { return result }
            let now = monotonicNanoseconds()
            guard now < deadline else { return nil }
            _ = signal.wait(timeout: .now() + .nanoseconds(Int(deadline - now)))
        }
    }
}
