// SPDX-License-Identifier: Apache-2.0
/// What each network has used, by local calendar day: the one record usage is kept in. "Today", "this cycle"
/// and past cycles are all sums of days, so a cycle set later (or changed) applies to what was counted before.
public struct UsageBook: Sendable, Hashable {
    /// Each network's days with traffic.
    public private(set) var days: [NetworkKey: [CalendarDay: ByteCounts]]

    /// Days kept: four cycles of the longest month, so "the last cycles" are always whole.
    public static let daysKept = 4 * 31 + 1

    public init(days: [NetworkKey: [CalendarDay: ByteCounts]] = [:]) {
        self.days = days
    }

    /// Counts `counts` to `key` on `day`.
    public mutating func add(_ counts: ByteCounts, to key: NetworkKey, on day: CalendarDay) {
        guard counts != .zero else { return }
        days[key, default: [:]][day, default: .zero] += counts
    }

    /// What `key` used on the days of `range`.
    public func total(of key: NetworkKey, in range: Range<CalendarDay>) -> ByteCounts {
        guard let byDay = days[key] else { return .zero }
        var total = ByteCounts.zero
        for (day, counts) in byDay where range.contains(day) { total += counts }
        return total
    }

    /// Forgets the days before `day`, and the networks left with none.
    public mutating func forget(before day: CalendarDay) {
        for key in Array(days.keys) {
            days[key] = days[key]?.filter { $0.key >= day }
            if days[key]?.isEmpty == true { days[key] = nil }
        }
    }

    /// Each network's usage on `today`, in the cycle that holds it and in the `pastCycles` before, by key; the
    /// networks of `alsoListing` (those attached now) even before they used a byte.
    public func usage(
        today: CalendarDay, cycle: BillingCycle = .calendarMonth, pastCycles: Int = 3,
        alsoListing: Set<NetworkKey> = []
    ) -> [NetworkUsage] {
        let current = cycle.cycle(containing: today)
        var cycles = [current]
        for _ in 0..<max(0, pastCycles) { cycles.append(cycle.cycle(before: cycles[cycles.count - 1])) }
        return Set(days.keys).union(alsoListing).sorted().map { key in
            let periods = cycles.map { NetworkUsage.Period(days: $0, counts: total(of: key, in: $0)) }
            return NetworkUsage(
                key: key, today: days[key]?[today] ?? .zero, cycle: periods[0], pastCycles: Array(periods.dropFirst()))
        }
    }
}

/// One network's usage as reported: today, this cycle and the cycles before.
public struct NetworkUsage: Sendable, Hashable {
    /// Some days and what was used in them.
    public struct Period: Sendable, Hashable {
        /// The first day, and the day after the last.
        public var days: Range<CalendarDay>
        public var counts: ByteCounts

        public init(days: Range<CalendarDay>, counts: ByteCounts) {
            self.days = days
            self.counts = counts
        }
    }

    public var key: NetworkKey
    public var today: ByteCounts
    /// The cycle that holds today.
    public var cycle: Period
    /// The cycles before, newest first.
    public var pastCycles: [Period]

    public init(key: NetworkKey, today: ByteCounts, cycle: Period, pastCycles: [Period]) {
        self.key = key
        self.today = today
        self.cycle = cycle
        self.pastCycles = pastCycles
    }
}
