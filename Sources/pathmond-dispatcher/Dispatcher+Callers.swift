// SPDX-License-Identifier: Apache-2.0
import Logging
import PathModel
import PathProtocol

/// Who may do what on the dispatcher's socket, which every local user can reach. Root may list, forget, and defer
/// the run of the unit it runs in while that unit's conditions run. Any other user may only defer, and only as the
/// process systemd runs as a service's `ExecCondition=` command right now: the peer (SO_PEERCRED) is in the
/// service's cgroup, the service's SubState is "condition", its ControlPID is the peer's pid, and that process still
/// runs as the peer's uid (a pid freed and reused by another user's process is not the caller). No parameter names
/// the unit: a user can register only the unit whose condition it is, while it is.
extension Dispatcher {
    /// Why a call is refused: the error name, and a sentence the caller prints and the journal keeps.
    struct Refusal: Error, Hashable {
        var error: String
        var reason: String
    }

    /// Answers one call on the dispatcher's socket.
    func answer(_ call: DispatcherServer.DispatcherCall) -> [UInt8] {
        let codec = VarlinkCodec()
        func failure(_ name: String, _ parameters: [String: String] = [:]) -> [UInt8] {
            codec.encode(VarlinkReply(parameters: parameters, error: name))
        }
        guard let header = try? codec.decode(VarlinkCall.self, from: call.frame),
            let method = DispatcherProtocol.Method(rawValue: header.method)
        else { return failure(DispatcherProtocol.ErrorName.methodNotFound) }
        guard call.peerUserID == 0 || method == .deferRun else {
            forbidden.notice("refused \(header.method) from uid \(call.peerUserID): only root may list or forget")
            return failure(DispatcherProtocol.ErrorName.permissionDenied)
        }
        switch method {
        case .deferRun:
            let parameters: DispatcherProtocol.DeferParameters?
            do {
                parameters = try codec.parameters(DispatcherProtocol.DeferParameters.self, from: call.frame)
            } catch {
                return failure(DispatcherProtocol.ErrorName.invalidParameter, ["parameter": "maxDeferralSeconds"])
            }
            let unit: String
            switch conditionUnit(processID: call.peerProcessID, userID: call.peerUserID) {
            case .success(let found): unit = found
            case .failure(let refusal):
                let message = "run not deferred (pid \(call.peerProcessID), uid \(call.peerUserID)): \(refusal.reason)"
                // Root's own shell is no adversary: only the debug log hears of it.
                if call.peerUserID == 0 { logger.debug("\(message)") } else { refusals.notice(message) }
                return failure(refusal.error, ["reason": refusal.reason])
            }
            let cap = parameters?.maxDeferralSeconds.map { Duration.seconds($0) }
            guard let outcome = registerDeferral(unit: unit, maximumDeferral: cap) else {
                return failure(
                    DispatcherProtocol.ErrorName.tooManyDeferrals,
                    ["reason": "\(DeferralBook.capacity) units wait already"])
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

    /// The service whose `ExecCondition=` the peer is running, or why it is not one. Root is trusted to be where
    /// its cgroup says while that service's conditions run (a `+` command, a root unit's condition, a wrapper
    /// script); any other user must be the condition process itself.
    func conditionUnit(processID: Int32, userID: UInt32) -> Result<String, Refusal> {
        func refused(_ reason: String) -> Result<String, Refusal> {
            .failure(Refusal(error: DispatcherProtocol.ErrorName.notACondition, reason: reason))
        }
        guard let process = units.process(processID) else {
            return refused("the caller (pid \(processID)) runs in no system unit")
        }
        guard process.userID == userID else {
            return refused("the caller's pid \(processID) runs as uid \(process.userID) now, not as uid \(userID)")
        }
        let unit = process.unit
        guard unit.hasSuffix(".service") else {
            return refused("the caller runs in \(unit), not in a service: only a service's ExecCondition= defers")
        }
        // Every process of a user's own systemd (a desktop's apps) is in user@UID.service, never a condition the
        // system runs: refused before asking systemd anything, so no user keeps the loop on the bus in a loop.
        guard !unit.hasPrefix("user@") else {
            return refused("the caller runs in \(unit), a user's own systemd: only a system service's condition defers")
        }
        guard let state = units.conditionState(of: unit) else {
            return refused("systemd does not know \(unit)")
        }
        guard state.subState == "condition" else {
            return refused("\(unit) is \(state.subState), not running its ExecCondition= commands")
        }
        guard userID == 0 || state.controlProcessID == processID else {
            return refused(
                "the caller (pid \(processID), uid \(userID)) is not the ExecCondition= command of \(unit) (its "
                    + "ControlPID is \(state.controlProcessID)): a wrapper script must exec pathctl")
        }
        return .success(unit)
    }
}
