// SPDX-License-Identifier: Apache-2.0
import Logging
import PathModel
import PathProtocol
import SDEvent

#if canImport(Glibc)
    import Glibc
#endif

/// Deferred runs: `pathctl check` in a unit's `ExecCondition=` found the path metered and registered the unit; the
/// dispatcher starts each registered unit once when the (damped) path turns cheap, oldest first, `spacing` apart.
extension Dispatcher {
    /// The time between two deferred starts: ten deferred units must not start in the same second.
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

    /// Answers one call on the dispatcher's socket.
    func answer(_ call: DispatcherServer.DispatcherCall) -> [UInt8] {
        let codec = VarlinkCodec()
        func failure(_ name: String, _ parameters: [String: String] = [:]) -> [UInt8] {
            codec.encode(VarlinkReply(parameters: parameters, error: name))
        }
        guard call.peerUserID == 0 else {
            logger.warning("refused a call from uid \(call.peerUserID): only root may use the dispatcher")
            return failure(DispatcherProtocol.ErrorName.permissionDenied)
        }
        guard let header = try? codec.decode(VarlinkCall.self, from: call.frame),
            let method = DispatcherProtocol.Method(rawValue: header.method)
        else { return failure(DispatcherProtocol.ErrorName.methodNotFound) }
        switch method {
        case .deferRun:
            let parameters: DispatcherProtocol.DeferParameters?
            do {
                parameters = try codec.parameters(DispatcherProtocol.DeferParameters.self, from: call.frame)
            } catch {
                return failure(DispatcherProtocol.ErrorName.invalidParameter, ["parameter": "maxDeferralSeconds"])
            }
            // The unit is the caller's own, from its cgroup; and only while systemd runs its conditions.
            guard let unit = DispatcherServer.unit(ofProcess: call.peerProcessID), unit.hasSuffix(".service"),
                units.subState(of: unit) == "condition"
            else { return failure(DispatcherProtocol.ErrorName.notACondition) }
            let cap = parameters?.maxDeferralSeconds.map { Duration.seconds($0) }
            guard let outcome = registerDeferral(unit: unit, maximumDeferral: cap) else {
                return failure(DispatcherProtocol.ErrorName.tooManyDeferrals)
            }
            switch outcome {
            case .deferred(let deferral):
                return codec.encodeReply(DispatcherProtocol.DeferReply(deferral: .init(deferral), runAnyway: false))
            case .capPassed(let deferral):
                return codec.encodeReply(DispatcherProtocol.DeferReply(deferral: .init(deferral), runAnyway: true))
            }
        case .listDeferred:
            return codec.encodeReply(
                DispatcherProtocol.ListDeferredReply(deferred: book.deferrals.map(DispatcherProtocol.WireDeferral.init))
            )
        case .forget:
            guard let parameters = try? codec.parameters(DispatcherProtocol.ForgetParameters.self, from: call.frame)
            else { return failure(DispatcherProtocol.ErrorName.invalidParameter, ["parameter": "unit"]) }
            guard book.remove(unit: parameters.unit) else {
                return failure(DispatcherProtocol.ErrorName.noSuchDeferral)
            }
            store?.save(book)
            logger.notice("deferred run of \(parameters.unit) forgotten (pathctl deferred --forget)")
            return codec.encodeReply(NoParameters())
        }
    }

    private func registerDeferral(unit: String, maximumDeferral: Duration?) -> DeferralBook.Outcome? {
        let outcome = book.register(unit: unit, at: Self.wallSeconds(), maximumDeferral: maximumDeferral)
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

    private func startNextDeferred() {
        deferredRunTimer = nil
        guard gate.isUnmetered == true, lastVerdict??.isUnmetered == true, let deferral = book.next else { return }
        book.remove(unit: deferral.unit)
        store?.save(book)
        let waited = TimeSpan.format(.seconds(max(0, Self.wallSeconds() - deferral.since)))
        do {
            let job = try units.perform(.start, unit: deferral.unit)
            logger.notice(
                "the path is cheap: starting \(deferral.unit), deferred \(waited) ago (\(deferral.skips) skipped runs)",
                metadata: ["job": "\(job)"])
        } catch {
            // A unit since removed, say: dropped, not retried for ever.
            logger.error("cannot start the deferred run of \(deferral.unit): \(error); its deferral is dropped")
        }
        scheduleDeferredRuns(after: Self.spacing)
    }
}
