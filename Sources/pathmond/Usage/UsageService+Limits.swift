// SPDX-License-Identifier: Apache-2.0
import DaemonRuntime
import Logging
import PathModel
import SDEvent

/// What the usage service keeps of the data limits between two looks, on the main loop.
struct LimitWatch {
    /// The statuses last handed to the hub (`NetworkContext.dataLimits`), by network.
    var published: [NetworkKey: DataLimitStatus] = [:]
    /// Whether a counted network is near a threshold (`DataLimitStatus.isNearThreshold`): the reading rounds then
    /// come every `nearDelay`.
    var isNear = false
    /// The delay of the next round while near: `UsageService.nearInterval` while the near networks' usage grows,
    /// doubled after each round that found none of their bytes, up to `UsageService.nearIdleInterval`.
    var nearDelay = UsageService.nearInterval
    /// The near networks' usage at the last look: growth says traffic flows.
    var nearUsed: UInt64 = 0
    /// The longest wait before the next round with a counted network below its limit: the time its bytes left
    /// before the next level take at `UsageService.fastestRate`, at least `UsageService.nearInterval`; nil with no
    /// such network.
    var headroomDelay: Duration?
    /// The timer for the next cycle's start of a network past its warning, and that day.
    var resetTimer: SDEventSource?
    var resetDay: CalendarDay?
    /// The limits the policy sets, by network, and the hub's `factsVersion` they were read at. The policy is part
    /// of the context, and every change of the context moves that version: while it stands, the limits are these,
    /// and a reading round (one at every route flip that moves a wired network) copies no context to learn that
    /// there are none.
    var policyLimits: (factsVersion: UInt64, limits: [NetworkKey: DataLimit])?
}

/// Data limits (issue 43, item 2): after every reading round and every policy change, each limited network's usage
/// this cycle is measured against its limit; a status that says something new (`DataLimitStatus.differsInReport`)
/// goes to the hub as the context's `dataLimits`, and the path evaluator makes the network constrained or expensive.
///
/// Reads near a threshold: while a counted network is between a tenth of its limit below its warning and its limit
/// (`DataLimitStatus.isNearThreshold`), the counted interfaces are read every second (`nearInterval`) instead of
/// every interval while its usage grows, so that a crossing is seen within about a second while traffic flows;
/// each round that finds no new byte there doubles the delay, up to 8 s (`nearIdleInterval`). Cost, only then: one
/// RTM_GETSTATS per counted interface and one wake-up a second while traffic flows, 7.5 a minute while it does not;
/// the file is still saved once an interval. With no counted network, no timer at all.
///
/// Reads before a burst: a network far below its warning can still reach it within one interval (a 60 s interval
/// is 7.5 GB at 1 Gbit/s), so a round also comes within the time its bytes left before the next level take at
/// `fastestRate` (`LimitWatch.headroomDelay`): a crossing at up to 1 Gbit/s is seen within about a second however
/// far below it the network was. Cost: one round a second while a counted network is within 125 MB of a level, one
/// every (bytes left ÷ 125 MB) seconds beyond, up to the interval; none without a counted network with a limit.
///
/// The cycle's reset: while a network is past its warning, a timer waits for the local midnight its cycle ends at
/// (at most an hour at a time, so that a wall clock set forward is caught within the hour); it measures again,
/// which turns the network back.
extension UsageService {
    /// How often counted interfaces are read while one of their networks is near a threshold and its traffic flows.
    static let nearInterval = Duration.seconds(1)
    /// The fastest a metered network is assumed to carry bytes, sent and received together (1 Gbit/s, a Wi-Fi
    /// hotspot or 5G at its best): what `LimitWatch.headroomDelay` is reckoned at.
    static let fastestRate: UInt64 = 125_000_000
    /// The longest delay between rounds near a threshold while no byte flows there.
    static let nearIdleInterval = Duration.seconds(8)
    /// The longest the reset timer waits before it looks at the wall clock again.
    static let longestResetWait = 3600

    /// Measures each limited network and hands the hub what changed; arms or cancels the reset timer.
    func refreshLimits() {
        // The version first: a context changed between the two looks is taken again at the next.
        let factsVersion = hub.factsVersion
        let limited: [NetworkKey: DataLimit]
        if let policyLimits = limits.policyLimits, policyLimits.factsVersion == factsVersion {
            limited = policyLimits.limits
        } else {
            limited = hub.context.policy.networks.compactMapValues(\.dataLimit)
            limits.policyLimits = (factsVersion, limited)
        }
        guard !limited.isEmpty || !limits.published.isEmpty else { return }
        let day = today()
        let (statuses, counted) = meter.withLock { meter in
            (
                limited.map { key, limit in (key, DataLimitStatus(limit: limit, key: key, book: meter.book, today: day))
                },
                Set(meter.counted.compactMap(meter.key(of:)))
            )
        }
        let now = Dictionary(statuses, uniquingKeysWith: { first, _ in first })
        let wasNear = limits.isNear
        let near = now.filter { counted.contains($0.key) && $0.value.isNearThreshold }
        limits.isNear = !near.isEmpty
        let nearUsed = near.values.reduce(UInt64(0)) { $0 &+ $1.used }
        if !wasNear || nearUsed != limits.nearUsed {
            limits.nearDelay = Self.nearInterval
        } else {
            limits.nearDelay = min(limits.nearDelay * 2, Self.nearIdleInterval)
        }
        limits.nearUsed = nearUsed
        let headroom = now.lazy.filter { counted.contains($0.key) }.compactMap(\.value.bytesToNextLevel).min()
        let headroomDelay = headroom.map { max(Self.nearInterval, .seconds($0 / Self.fastestRate)) }
        let sooner = headroomDelay.map { new in limits.headroomDelay.map { new < $0 } ?? true } ?? false
        limits.headroomDelay = headroomDelay
        if (limits.isNear && !wasNear) || sooner {
            // The pending round was armed for a longer wait (or none was, after a policy change): the next one
            // comes sooner.
            timer = nil
            armTimer()
        }
        let changed = Set(now.keys).union(limits.published.keys).filter {
            now[$0]?.differsInReport(from: limits.published[$0]) ?? true
        }
        armResetTimer(now)
        guard !changed.isEmpty else { return }
        let before = limits.published
        limits.published = now
        let cause = limitCause(changed: changed, before: before, now: now)
        // Posted, not applied here: this runs inside the hub's own update (its afterUpdate) as often as not.
        loop.execute { [hub] in hub.updateContext(cause: cause) { $0.dataLimits = now } }
    }

    /// Logs each level crossed (with the records the catalog explains) and names the change for the history.
    private func limitCause(
        changed: Set<NetworkKey>, before: [NetworkKey: DataLimitStatus], now: [NetworkKey: DataLimitStatus]
    ) -> PathChangeCause {
        var details: [String] = []
        for key in changed.sorted() {
            guard let status = now[key] else { continue }
            let old = before[key]
            let summary = "\(key): \(status.summary)"
            if let old, old.cycle != status.cycle, status.level < old.level {
                details.append("\(summary), a new cycle since \(status.cycle.lowerBound)")
                logger.notice(
                    "data limit of \(key): a new cycle began on \(status.cycle.lowerBound) (\(status.summary))",
                    metadata: [JournalRecord.Field.network.rawValue: .string(key.description)])
            } else if status.level > (old?.level ?? .normal) || (old == nil && status.level > .normal) {
                let record: JournalRecord = status.level == .exceeded ? .dataLimitReached : .dataLimitWarning
                let what = status.level == .exceeded ? "limit reached" : "warning reached"
                details.append("\(summary), \(what)")
                logger.notice(
                    "data limit of \(key): \(what), \(status.summary) until \(status.resetDay)",
                    metadata: record.metadata([.network: key.description]))
            } else if old?.level != status.level || old?.limit != status.limit {
                details.append(summary)
            }
        }
        let onNetworks = hub.interfaces.filter { status in status.identity.map { changed.contains($0.key) } ?? false }
        return .detected(
            .dataLimit, interfaces: onNetworks.map(\.link.index),
            detail: details.isEmpty ? nil : details.joined(separator: "; "))
    }

    /// A timer for the earliest cycle end of a network past its warning; none while none is.
    private func armResetTimer(_ statuses: [NetworkKey: DataLimitStatus]) {
        let day = statuses.values.filter { $0.level > .normal }.map(\.resetDay).min()
        guard day != limits.resetDay || (day != nil && limits.resetTimer == nil) else { return }
        limits.resetDay = day
        limits.resetTimer = nil
        guard let day else { return }
        let wait = min(LocalCalendar.secondsUntilStart(of: day), Self.longestResetWait)
        do {
            // A second past midnight: the day must have turned when the timer looks.
            limits.resetTimer = try loop.schedule(after: .seconds(wait + 1)) { [weak self] in
                guard let self else { return }
                limits.resetTimer = nil
                limits.resetDay = nil
                readCounted()
                refreshLimits()
            }
        } catch {
            logger.error("cannot schedule the data limit's reset: \(error); it turns back at the next reading")
        }
    }
}
