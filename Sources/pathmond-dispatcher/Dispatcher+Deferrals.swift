// SPDX-License-Identifier: Apache-2.0
import Logging
import PathModel
import PathProtocol
import SDEvent

#if canImport(Glibc)
    import Glibc
#endif

/// Deferred runs: `pathctl check` in a unit's `ExecCondition=` found the path metered and registered the unit; the
/// dispatcher starts each registered unit once when the (damped) path turns cheap, oldest first, `spacing` apart;
/// the deferrals of units systemd no longer has are dropped as soon as it says so.
extension Dispatcher {
    /// The time between two deferred starts: ten deferred units must not start in the same second. Only starts are
    /// spaced: a deferral dropped on the way costs no wait.
    static let spacing = Duration.seconds(2)

    /// Wall-clock seconds: a deferral's age must survive a reboot.
    static func wallSeconds() -> Int64 { Int64(time(nil)) }

    /// "2026-11-26 03:20:02 UTC", for the journal.
    static func utc(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M:%S UTC", &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func registerDeferral(unit: String, maximumDeferral: Duration?) -> DeferralBook.Outcome? {
        var outcome = book.register(unit: unit, at: Self.wallSeconds(), maximumDeferral: maximumDeferral)
        if outcome == nil {
            // Full: units systemd no longer has make room first.
            dropIfGone(book.deferrals.map(\.unit))
            outcome = book.register(unit: unit, at: Self.wallSeconds(), maximumDeferral: maximumDeferral)
        }
        switch outcome {
        case .deferred(let deferral):
            logger.notice(
                "run of \(unit) deferred until the path is cheap",
                metadata: ["since": "\(Self.utc(deferral.since))", "skips": "\(deferral.skips)"])
        case .capPassed(let deferral):
            let cap = maximumDeferral.map(TimeSpan.format) ?? "0"
            let waited = TimeSpan.format(.seconds(max(0, Self.wallSeconds() - deferral.since)))
            let message =
                "\(unit) has waited for a cheap path since \(Self.utc(deferral.since)) (\(waited), \(deferral.skips) "
                + "skipped runs), longer than its --max-deferral \(cap): it runs now on the metered path"
            logger.notice("\(message)")
        case nil:
            logger.error("run of \(unit) not deferred: \(DeferralBook.capacity) units wait already")
        }
        if outcome != nil { store?.save(book) }
        // Damped cheap but the path itself metered for a moment (within the grace): the run waits until the path is
        // cheap again, not until the next time the damped state turns cheap.
        scheduleDeferredRuns(after: gate.timing.settle)
        return outcome
    }

    /// Starts deferred units one by one while the damped path is unmetered and the path itself is too (so that the
    /// unit's own `pathctl check` passes); the next one `spacing` later. Stops at the first change for the worse:
    /// the rest wait for the next cheap path.
    func scheduleDeferredRuns(after delay: Duration = .zero) {
        guard deferredRunTimer == nil, !book.deferrals.isEmpty else { return }
        let dispatcher = UncheckedTransfer(self)
        deferredRunTimer = try? loop.schedule(after: delay) { dispatcher.value.startNextDeferred() }
    }

    /// Starts the oldest deferred unit systemd still has; the next one `spacing` later. Units systemd no longer
    /// has are dropped on the way without a wait (at most `dropsPerTurn` a turn of the loop), and so is one whose
    /// start fails: only a start that was queued is spaced.
    private func startNextDeferred() {
        deferredRunTimer = nil
        var dropped: [String] = []
        defer { if !dropped.isEmpty { logDropped(dropped, why: "systemd no longer has them") } }
        while gate.isUnmetered == true, lastVerdict??.isUnmetered == true, let deferral = book.next {
            guard dropped.count < Self.dropsPerTurn else {
                store?.save(book)
                scheduleDeferredRuns()
                return
            }
            book.remove(unit: deferral.unit)
            if units.exists(deferral.unit) == false {
                dropped.append(deferral.unit)
                continue
            }
            // Saved before the start: a crash right after it must not run the unit a second time.
            store?.save(book)
            let waited = TimeSpan.format(.seconds(max(0, Self.wallSeconds() - deferral.since)))
            do {
                let job = try units.perform(.start, unit: deferral.unit)
                logger.notice(
                    "the path is cheap: starting \(deferral.unit), deferred \(waited) ago (\(deferral.skips) skipped runs)",
                    metadata: ["job": "\(job)"])
                scheduleDeferredRuns(after: Self.spacing)
            } catch {
                // A unit since removed or masked, say: dropped, not retried for ever, and the next goes at once.
                logger.error("cannot start the deferred run of \(deferral.unit): \(error); its deferral is dropped")
                scheduleDeferredRuns()
            }
            return
        }
        if !dropped.isEmpty { store?.save(book) }
    }

    /// How many unknown units one turn of the loop drops before the next turn (each is a call to systemd).
    static let dropsPerTurn = 100

    /// Follows systemd: drops at once the deferrals of units it no longer has, and again whenever it unloads a
    /// deferred unit (a transient unit garbage-collected, a unit file deleted) or finishes a daemon-reload.
    func followUnits() {
        let dispatcher = UncheckedTransfer(self)
        units.watchUnitRemovals { unit in
            if let unit {
                dispatcher.value.dropIfGone([unit])
            } else {
                dispatcher.value.dropIfGone(dispatcher.value.book.deferrals.map(\.unit))
            }
        }
        dropIfGone(book.deferrals.map(\.unit))
    }

    /// Drops the deferrals among `candidates` whose units systemd says it does not have (not those it cannot say
    /// about: a bus that fails keeps them).
    func dropIfGone(_ candidates: [String]) {
        let waiting = Set(book.deferrals.map(\.unit))
        let gone = candidates.filter { waiting.contains($0) && units.exists($0) == false }
        guard !gone.isEmpty else { return }
        for unit in gone { book.remove(unit: unit) }
        store?.save(book)
        logDropped(gone, why: "systemd no longer has them (no unit file, or a transient unit that is gone)")
    }

    private func logDropped(_ units: [String], why: String) {
        let shown = units.prefix(10).joined(separator: ", ") + (units.count > 10 ? ", …" : "")
        logger.notice("dropped \(units.count) deferred run\(units.count == 1 ? "" : "s"): \(why): \(shown)")
    }
}
