// SPDX-License-Identifier: Apache-2.0
/// The system policy's damped view of the path: whether the system counts as online and as unmetered, for the
/// targets `pathmond-online.target` and `pathmond-unmetered.target` and for deferred runs.
///
/// Clients of the Varlink API see every change of the path at once; the system policy follows it through a settle
/// time, so that a short dip does not start and stop units. A signal turning good (online, unmetered) counts once it
/// has held for `settle`; turning bad, once that has held for `grace` (longer by default: a Wi-Fi roam through a
/// phone's hotspot must not stop what runs on the cheap path). Before the first decision the state is unknown, and
/// the first decision, either way, comes after `settle`. While pathmond cannot be reached nothing is known: the
/// damped state stays, and the time a pending change has waited is forgotten.
///
/// Pure: time arrives as a value (`Duration` since any fixed origin, e.g. CLOCK_MONOTONIC), and the caller arms a
/// timer for ``nextDecision`` and calls ``advance(to:)`` when it fires. Derive, compare, then notify: every method
/// returns the decisions it made, in the order the caller must carry them out.
public struct SystemPolicyGate: Sendable, Hashable {
    /// The two things the system policy follows, as the path says them right now.
    public struct Verdict: Sendable, Hashable {
        /// The path is satisfied.
        public var isOnline: Bool
        /// The path is satisfied and neither expensive nor constrained (an ultra-constrained path is constrained), nor
        /// held at a captive portal: work that waits for a cheap path would only fetch the portal's page.
        public var isUnmetered: Bool

        public init(isOnline: Bool, isUnmetered: Bool) {
            self.isOnline = isOnline
            self.isUnmetered = isOnline && isUnmetered
        }

        /// The verdict on a path.
        public init(_ path: Path) {
            self.init(
                isOnline: path.status == .satisfied,
                isUnmetered: !path.isExpensive && !path.isConstrained && !path.isUltraConstrained
                    && path.captivePortal != .captive)
        }
    }

    /// A damped change the caller carries out (start or stop a target, start deferred runs).
    public enum Decision: Sendable, Hashable {
        /// The system now counts as online (true) or offline (false).
        case online(Bool)
        /// The system now counts as on an unmetered path (true) or not (false).
        case unmetered(Bool)
    }

    /// How long a change must hold before it counts.
    public struct Timing: Sendable, Hashable {
        /// For turning online or unmetered.
        public var settle: Duration
        /// For turning offline or metered.
        public var grace: Duration

        /// The defaults: 3 s to settle, 30 s of grace.
        public static let standard = Timing(settle: .seconds(3), grace: .seconds(30))

        public init(settle: Duration, grace: Duration) {
            self.settle = max(.zero, settle)
            self.grace = max(.zero, grace)
        }
    }

    /// One followed signal: its damped level, and the raw value it waits to take.
    struct Signal: Sendable, Hashable {
        /// The level in force; nil before the first decision.
        var level: Bool?
        /// What the path says now; nil while nothing is known.
        var raw: Bool?
        /// When `raw` took its value.
        var rawSince: Duration = .zero

        /// When `raw` becomes the level, or nil when nothing is pending.
        func deadline(_ timing: Timing) -> Duration? {
            guard let raw, raw != level else { return nil }
            return rawSince + (level == nil || raw ? timing.settle : timing.grace)
        }

        mutating func observe(_ value: Bool?, at now: Duration) {
            guard value != raw else { return }
            raw = value
            rawSince = now
        }
    }

    public private(set) var timing: Timing
    private(set) var online = Signal()
    private(set) var unmetered = Signal()

    /// A gate that knows nothing yet.
    public init(timing: Timing = .standard) {
        self.timing = timing
    }

    /// Whether the system counts as online; nil before the first decision.
    public var isOnline: Bool? { online.level }
    /// Whether the system counts as unmetered; nil before the first decision.
    public var isUnmetered: Bool? { unmetered.level }

    /// When the next decision falls due if nothing else changes: arm a timer for it. Nil when none is pending.
    public var nextDecision: Duration? {
        [online.deadline(timing), unmetered.deadline(timing)].compactMap { $0 }.min()
    }

    /// The path as it is now (nil: pathmond cannot be reached), at `now`. Returns the decisions due at `now`.
    public mutating func observe(_ verdict: Verdict?, at now: Duration) -> [Decision] {
        online.observe(verdict?.isOnline, at: now)
        unmetered.observe(verdict?.isUnmetered, at: now)
        return advance(to: now)
    }

    /// New settle and grace times, counted from when each pending change began. Returns the decisions due at `now`.
    public mutating func reconfigure(_ timing: Timing, at now: Duration) -> [Decision] {
        self.timing = timing
        return advance(to: now)
    }

    /// Makes the decisions due at `now`: turning online before unmetered, turning metered before offline.
    public mutating func advance(to now: Duration) -> [Decision] {
        var decisions: [Decision] = []
        func settle(_ signal: inout Signal, _ decision: (Bool) -> Decision) {
            guard let deadline = signal.deadline(timing), deadline <= now, let raw = signal.raw else { return }
            signal.level = raw
            decisions.append(decision(raw))
        }
        let order = unmetered.raw == false || online.raw == false
        if order {
            settle(&unmetered, Decision.unmetered)
            settle(&online, Decision.online)
        } else {
            settle(&online, Decision.online)
            settle(&unmetered, Decision.unmetered)
        }
        return decisions
    }
}
