// SPDX-License-Identifier: Apache-2.0
import ConnectivityProbe
import Logging
import PathModel
import SDEvent

/// The optional RFC 8908 check (`[captive-portal] check-api`): asks the portal API each interface's network
/// announced, out of that interface, when the URI appears or changes and again when the session's
/// `seconds-remaining` runs out (a timer on the main loop, nothing polled). A check that fails is tried again
/// after a backoff: a portal's API is often not up yet when the lease that names it arrives. The request itself is
/// `pathmond-probe`'s (`io.pathmond.Probe.AskPortalAPI` through `ProbeCall`, as the connectivity check asks): pathmond
/// opens no IP socket and starts no thread for it.
///
/// Everything here runs on the daemon's main loop; nothing waits.
final class CaptivePortalChecker {
    /// One interface's announced URI and what its API said.
    private struct Entry {
        var uri: String
        /// The interface's name, which the request is bound to.
        var interface: String
        /// The last answer for this URI; kept when a later check fails (the path stays as it was).
        var answer: CaptivePortalAPIStatus?
        var call: ProbeCall<PortalAPIRequest>?
        /// Fires when the answer's `seconds-remaining` runs out, or a failed check's backoff.
        var recheck: SDEventSource?
        /// Checks failed in a row since the last answer: the backoff's exponent.
        var failures = 0
    }

    private let loop: SDEventLoop
    private let probeSocket: String
    private let logger: Logger
    /// Called on the loop when an answer changed what the path may show.
    private let onChange: () -> Void
    private var entries: [Int32: Entry] = [:]
    /// The probe was found missing (no socket): said once, until it answers again.
    private var saidProbeMissing = false
    /// Whether the configuration asks for checks at all.
    private(set) var isEnabled = false

    /// The shortest wait before asking again, whatever `seconds-remaining` says: a portal answering 0 every time
    /// must not make pathmond ask in a loop.
    static let minimumRecheck = Duration.seconds(2)
    /// The longest: a day, so that a huge count cannot overflow a timer.
    static let maximumRecheck = Duration.seconds(86_400)
    /// After a failed check pathmond asks again in 5 s, then twice as long each time, at most every 10 minutes
    /// (Android's NetworkMonitor backs off to the same bound): quick while a portal is coming up, a few requests
    /// an hour at worst against one that never answers.
    static let retries = RetryBackoff(first: .seconds(5), longest: .seconds(600))

    init(loop: SDEventLoop, probeSocket: String, logger: Logger, onChange: @escaping () -> Void) {
        self.loop = loop
        self.probeSocket = probeSocket
        self.logger = logger
        self.onChange = onChange
    }

    /// Turns checks on or off (start, reload); off forgets every answer and timer.
    func setEnabled(_ enabled: Bool) {
        guard enabled != isEnabled else { return }
        isEnabled = enabled
        if !enabled { forgetAll() }
        onChange()
    }

    func stop() { forgetAll() }

    /// The answers to show for the URIs announced now, by interface index; starts a check for each URI not asked
    /// yet and forgets interfaces whose URI went away or changed.
    func answers(announced: [Int32: String], names: [Int32: String]) -> [Int32: CaptivePortalAPIStatus] {
        guard isEnabled else { return [:] }
        let wanted = announced.filter {
            CaptivePortalHint.isValidURI($0.value) && $0.value != CaptivePortalHint.unrestricted
        }
        for (index, entry) in entries where wanted[index] != entry.uri || names[index] != entry.interface {
            forget(index)
        }
        // The request is bound to the interface by name: one not named yet is asked once it is.
        for (index, uri) in wanted where entries[index] == nil {
            guard let name = names[index] else { continue }
            entries[index] = Entry(uri: uri, interface: name)
            start(index: index)
        }
        return entries.compactMapValues(\.answer)
    }

    private func forget(_ index: Int32) {
        entries[index]?.call?.cancel()
        entries[index]?.recheck?.cancel()
        entries[index] = nil
    }

    private func forgetAll() {
        for index in Array(entries.keys) { forget(index) }
    }

    /// Asks the probe about `index`'s URI; the result comes back through `finish`.
    private func start(index: Int32) {
        guard var entry = entries[index], entry.call == nil else { return }
        let uri = entry.uri
        let name = entry.interface
        guard PortalAPIRequest.isValidURI(uri) else {
            logger.warning(
                "captive portal API not checked",
                metadata: [
                    "interface": "\(name)", "uri": "\(uri)",
                    "reason": "not an https URI (RFC 8908 requires HTTPS), not asked",
                ])
            return
        }
        let checker = UncheckedTransfer(self)
        let call = ProbeCall(
            loop: loop, socketPath: probeSocket, request: PortalAPIRequest(uri: uri, interface: name)
        ) { result in
            checker.value.finish(index: index, uri: uri, result: result)
        }
        entry.call = call
        entry.recheck = nil
        entries[index] = entry
        logger.debug("checking captive portal API", metadata: ["interface": "\(name)", "uri": "\(uri)"])
        call.start()
    }

    private func finish(index: Int32, uri: String, result: Result<PortalAPIRequest.Reply, ProbeCallError>) {
        // The interface went, its URI changed, or checks were turned off while the request ran: not this answer's.
        guard var entry = entries[index], entry.uri == uri, entry.call != nil else { return }
        entry.call = nil
        let name = entry.interface
        switch result {
        case .success(.success(let answer)):
            saidProbeMissing = false
            logger.info(
                "captive portal API answered",
                metadata: [
                    "interface": "\(name)", "uri": "\(uri)", "captive": "\(answer.isCaptive)",
                    "secondsRemaining": "\(answer.secondsRemaining.map(String.init) ?? "-")",
                ])
            let changed = entry.answer != answer
            entry.answer = answer
            entry.failures = 0
            if let seconds = answer.secondsRemaining {
                let delay = min(max(Duration.seconds(seconds), Self.minimumRecheck), Self.maximumRecheck)
                entry.recheck = schedule(index: index, after: delay)
            }
            entries[index] = entry
            if changed { onChange() }
        case .success(.failure(let failure)):
            saidProbeMissing = false
            failed(&entry, index: index, reason: "\(failure)", level: .warning)
        case .failure(let error) where error.isProbeMissing:
            // No probe installed (or its socket stopped): said once at notice, not per interface and retry.
            failed(&entry, index: index, reason: "no probe at \(probeSocket)", level: saidProbeMissing ? nil : .notice)
            saidProbeMissing = true
        case .failure(let error):
            failed(&entry, index: index, reason: "\(error)", level: .warning)
        }
    }

    /// A check that gave no answer: logged with its reason (at `level`; nil: not again), asked again after the
    /// backoff; the path keeps what it had.
    private func failed(_ entry: inout Entry, index: Int32, reason: String, level: Logger.Level?) {
        entry.failures += 1
        let delay = Self.retries.delay(afterFailures: entry.failures)
        entry.recheck = schedule(index: index, after: delay)
        entries[index] = entry
        guard let level else { return }
        logger.log(
            level: level, "captive portal API check failed",
            metadata: [
                "interface": "\(entry.interface)", "uri": "\(entry.uri)", "reason": "\(reason)",
                "retryIn": "\(delay.components.seconds)s",
            ])
    }

    /// A one-shot timer for the next check: when the session runs out, or a failed check's backoff.
    private func schedule(index: Int32, after delay: Duration) -> SDEventSource? {
        let checker = UncheckedTransfer(self)
        do {
            return try loop.schedule(after: delay) { checker.value.start(index: index) }
        } catch {
            logger.warning("cannot time the captive portal's next check: \(error)", metadata: ["index": "\(index)"])
            return nil
        }
    }
}
