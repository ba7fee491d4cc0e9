// SPDX-License-Identifier: Apache-2.0
/// The runs `pathctl check` skipped on a metered path, waiting for a cheap one: one entry per unit, in the order
/// the units were first deferred. Kept by pathmond's dispatcher (root), which starts each unit once when the path
/// turns cheap and then drops it.
///
/// Pure: time arrives as a value, wall-clock seconds since the Unix epoch (a deferral outlives a reboot, so the
/// monotonic clock cannot measure it).
public struct DeferralBook: Sendable, Hashable {
    /// One unit whose runs wait.
    public struct Deferral: Sendable, Hashable {
        /// The unit, as systemd names it ("apt-daily.service").
        public var unit: String
        /// When its first skipped run was deferred (seconds since the epoch).
        public var since: Int64
        /// How many runs were skipped since then; they give one run.
        public var skips: Int

        public init(unit: String, since: Int64, skips: Int = 1) {
            self.unit = unit
            self.since = since
            self.skips = skips
        }
    }

    /// What registering a skipped run decided.
    public enum Outcome: Sendable, Hashable {
        /// The run waits; `deferral` says since when (an earlier skip's time when the unit already waited).
        case deferred(Deferral)
        /// The unit has waited longer than the cap: it runs now, and its deferral is dropped.
        case capPassed(Deferral)
    }

    /// The most units that may wait at once: far above the timers of any real system; the oldest are kept.
    public static let capacity = 1000

    /// The waiting units, oldest deferral first; never more than `capacity`.
    public private(set) var deferrals: [Deferral]

    /// A book of `deferrals` (oldest first, as a state file holds them): a unit's first entry counts, and of more
    /// than `capacity` units the oldest are kept, as `register` keeps them. Whatever a file held, the book is never
    /// fuller than one the dispatcher could have filled itself.
    public init(deferrals: [Deferral] = []) {
        var seen = Set<String>()
        var kept: [Deferral] = []
        for deferral in deferrals where kept.count < Self.capacity && seen.insert(deferral.unit).inserted {
            kept.append(deferral)
        }
        self.deferrals = kept
    }

    /// A run of `unit` was skipped at `now`. With `maximumDeferral`, a unit that has waited at least that long
    /// runs anyway (`capPassed`). A book full to `capacity` refuses new units: nil.
    public mutating func register(unit: String, at now: Int64, maximumDeferral: Duration? = nil) -> Outcome? {
        if let index = deferrals.firstIndex(where: { $0.unit == unit }) {
            deferrals[index].skips += 1
            let deferral = deferrals[index]
            if let maximumDeferral, Duration.seconds(now - deferral.since) >= maximumDeferral {
                deferrals.remove(at: index)
                return .capPassed(deferral)
            }
            return .deferred(deferral)
        }
        guard deferrals.count < Self.capacity else { return nil }
        let deferral = Deferral(unit: unit, since: now)
        // A cap of zero: the first skip already ran it, nothing waits.
        if let maximumDeferral, maximumDeferral <= .zero { return .capPassed(deferral) }
        deferrals.append(deferral)
        return .deferred(deferral)
    }

    /// Drops `unit`'s deferral (started, or forgotten); false when it had none.
    @discardableResult
    public mutating func remove(unit: String) -> Bool {
        guard let index = deferrals.firstIndex(where: { $0.unit == unit }) else { return false }
        deferrals.remove(at: index)
        return true
    }

    /// The first unit to start on a cheap path, if any.
    public var next: Deferral? { deferrals.first }
}
