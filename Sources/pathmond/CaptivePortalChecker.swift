// SPDX-License-Identifier: Apache-2.0
import Logging
import NetworkHints
import PathModel
import SDEvent

/// The optional RFC 8908 check (`[captive-portal] check-api`): asks the portal API each interface's network
/// announced, out of that interface, when the URI appears or changes and again when the session's
/// `seconds-remaining` runs out (a timer on the main loop, nothing polled). A check that fails is tried again
/// after a backoff: a portal's API is often not up yet when the lease that names it arrives. The request runs on a thread of its own (`pathmond-portal`, started at the
/// first check: a daemon with checks off never has it), one at a time, bounded in time and size by the client; its
/// result is posted back to the main loop, which never waits for it. Not libdispatch: its worker pool is what the
/// daemon gave up for sd-event (threads that wake by themselves, setpriority under the unit's seccomp filter).
///
/// Everything but the request itself runs on the daemon's main loop.
final class CaptivePortalChecker {
    /// One interface's announced URI and what its API said.
    private struct Entry {
        var uri: String
        /// The interface's name, which the request is bound to; nil when the interface has none known yet.
        var interface: String?
        /// The last answer for this URI; kept when a later check fails (the path stays as it was).
        var answer: CaptivePortalAPIStatus?
        var isInFlight = false
        /// Fires when the answer's `seconds-remaining` runs out, or a failed check's backoff.
        var recheck: SDEventSource?
        /// Checks failed in a row since the last answer: the backoff's exponent.
        var failures = 0
    }

    private let loop: SDEventLoop
    private let client: CaptivePortalAPIClient
    private let logger: Logger
    /// Called on the loop when an answer changed what the path may show.
    private let onChange: () -> Void
    /// The requests, one after another: a stalled portal delays the next check, never the loop. Started on first
    /// use.
    private var worker: SDEventLoop?
    private var entries: [Int32: Entry] = [:]
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

    init(loop: SDEventLoop, client: CaptivePortalAPIClient, logger: Logger, onChange: @escaping () -> Void) {
        self.loop = loop
        self.client = client
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

    func stop() {
        forgetAll()
        worker?.exit()
        worker = nil
    }

    /// The answers to show for the URIs announced now, by interface index; starts a check for each URI not asked
    /// yet and forgets interfaces whose URI went away or changed.
    func answers(announced: [Int32: String], names: [Int32: String]) -> [Int32: CaptivePortalAPIStatus] {
        guard isEnabled else { return [:] }
        let wanted = announced.filter {
            CaptivePortalHint.isValidURI($0.value) && $0.value != CaptivePortalHint.unrestricted
        }
        for (index, entry) in entries where wanted[index] != entry.uri {
            entry.recheck?.cancel()
            entries[index] = nil
        }
        for (index, uri) in wanted where entries[index] == nil {
            entries[index] = Entry(uri: uri, interface: names[index])
            start(index: index, name: names[index] ?? "\(index)")
        }
        return entries.compactMapValues(\.answer)
    }

    private func forgetAll() {
        for entry in entries.values { entry.recheck?.cancel() }
        entries = [:]
    }

    /// Sends the request for `index`'s URI on the worker; the result comes back through `finish`.
    private func start(index: Int32, name: String) {
        guard var entry = entries[index], !entry.isInFlight else { return }
        let uri = entry.uri
        guard CaptivePortalAPIClient.isHTTPS(uri) else {
            logger.warning(
                "captive portal API not checked",
                metadata: [
                    "interface": "\(name)", "uri": "\(uri)",
                    "reason": "\(CaptivePortalCheckError.notHTTPS)",
                ])
            return
        }
        let worker: SDEventLoop
        do {
            worker = try self.worker ?? SDEventLoop.startedOnNewThread(name: "pathmond-portal")
            self.worker = worker
        } catch {
            logger.warning("captive portal API not checked: cannot start its thread (\(error))")
            return
        }
        entry.isInFlight = true
        entry.recheck = nil
        entries[index] = entry
        logger.debug("checking captive portal API", metadata: ["interface": "\(name)", "uri": "\(uri)"])
        let client = client
        let loop = loop
        let interface = entry.interface
        let checker = UncheckedTransfer(self)
        worker.execute {
            let result = client.check(uri, interface: interface)
            // Only the loop touches the checker's state: the result is handed over, never applied here.
            loop.execute { checker.value.finish(index: index, name: name, uri: uri, result: result) }
        }
    }

    private func finish(
        index: Int32, name: String, uri: String, result: Result<CaptivePortalAPIStatus, CaptivePortalCheckError>
    ) {
        // The interface went, its URI changed, or checks were turned off while the request ran: not this answer's.
        guard var entry = entries[index], entry.uri == uri, entry.isInFlight else { return }
        entry.isInFlight = false
        switch result {
        case .success(let answer):
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
                entry.recheck = schedule(index: index, name: name, after: delay)
            }
            entries[index] = entry
            if changed { onChange() }
        case .failure(let error):
            entry.failures += 1
            var metadata: Logger.Metadata = ["interface": "\(name)", "uri": "\(uri)", "reason": "\(error)"]
            if error.isWorthRetrying {
                let delay = Self.retries.delay(afterFailures: entry.failures)
                entry.recheck = schedule(index: index, name: name, after: delay)
                metadata["retryIn"] = "\(delay.components.seconds)s"
            }
            logger.warning("captive portal API check failed", metadata: metadata)
            entries[index] = entry
        }
    }

    /// A one-shot timer for the next check: when the session runs out, or a failed check's backoff.
    private func schedule(index: Int32, name: String, after delay: Duration) -> SDEventSource? {
        let checker = UncheckedTransfer(self)
        do {
            return try loop.schedule(after: delay) { checker.value.start(index: index, name: name) }
        } catch {
            logger.warning("cannot time the captive portal's next check: \(error)", metadata: ["interface": "\(name)"])
            return nil
        }
    }
}
