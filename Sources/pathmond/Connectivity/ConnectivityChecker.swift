// SPDX-License-Identifier: Apache-2.0
import ConnectivityProbe
import Logging
import PathModel
import SDEvent

/// pathmond's own connectivity check (`[connectivity]`): for each interface that can carry traffic to the internet,
/// an HTTP request out of that interface, when the interface becomes usable or its addresses or routes change, and
/// again after `interval` (sooner, with a backoff, while the answer is not the expected one or the probe does not
/// answer). The request itself is `pathmond-probe`'s (`ProbeCall`): pathmond opens no IP socket. The answer becomes
/// the interface's captive-portal state: open, captive (a redirect or another answer) or limited (no answer).
///
/// Everything here runs on the daemon's main loop; nothing waits.
final class ConnectivityChecker {
    /// What an interface was checked as: a change of any of it is a new network, checked afresh. Addresses without
    /// their flags (a finished duplicate address detection is no new network), gateways without their metrics.
    private struct Attachment: Hashable {
        var name: String
        var families: AddressFamilies
        var addresses: Set<IPAddress>
        var gateways: Set<IPAddress>

        init(_ status: InterfaceStatus) {
            name = status.link.name
            families = status.supportedFamilies
            addresses = Set(status.addresses.filter(\.isUsable).map(\.address))
            gateways = Set(status.routes.compactMap(\.gateway))
        }
    }

    private struct Entry {
        var attachment: Attachment
        /// The last verdict; unknown until the first answer.
        var state = CaptivePortal.unknown
        var call: ProbeCall<ProbeRequest>?
        var recheck: SDEventSource?
        /// Answers in a row that were not the expected one: the backoff's exponent until the next check.
        var unanswered = 0
        /// Exchanges with the probe that failed in a row.
        var probeFailures = 0
    }

    private let loop: SDEventLoop
    private let probeSocket: String
    private let logger: Logger
    /// Called on the loop when a verdict changed what the path may show.
    private let onChange: () -> Void
    private var settings = ConnectivityCheckSettings()
    private var entries: [Int32: Entry] = [:]
    /// The probe was found missing (no socket): said once, until it answers again.
    private var saidProbeMissing = false

    /// After an answer that is not the expected one, asked again in 5 s, then twice as long each time, up to the
    /// interval: a portal the user just signed in to is seen open soon, one left alone costs a few requests an
    /// hour. The same for a probe that does not answer, bounded by 10 minutes.
    static let firstRetry = Duration.seconds(5)
    static let probeRetries = RetryBackoff(first: .seconds(5), longest: .seconds(600))

    init(loop: SDEventLoop, probeSocket: String, logger: Logger, onChange: @escaping () -> Void) {
        self.loop = loop
        self.probeSocket = probeSocket
        self.logger = logger
        self.onChange = onChange
    }

    /// Takes the configuration's `[connectivity]` (start, reload): another URI, answer or interval checks again.
    func configure(_ settings: ConnectivityCheckSettings) {
        guard settings != self.settings else { return }
        self.settings = settings
        forgetAll()
        onChange()
    }

    func stop() { forgetAll() }

    /// The verdicts to show, by interface index, for `interfaces` as they are now; starts a check for each usable
    /// interface not checked on its present network, and forgets the others. Empty when the check does not run:
    /// turned off, or (by default) because NetworkManager's own check runs.
    func states(for interfaces: [InterfaceStatus], networkManagerChecks: Bool) -> [Int32: CaptivePortal] {
        guard settings.runs(besideNetworkManager: networkManagerChecks) else {
            forgetAll()
            return [:]
        }
        var usable: [Int32: Attachment] = [:]
        for status in interfaces
        where status.interfaceClass.kind != .loopback && !status.supportedFamilies.isEmpty {
            usable[status.link.index] = Attachment(status)
        }
        for (index, entry) in entries where usable[index] != entry.attachment { forget(index) }
        for (index, attachment) in usable where entries[index] == nil {
            entries[index] = Entry(attachment: attachment)
            check(index)
        }
        return entries.compactMapValues { $0.state == .unknown ? nil : $0.state }
    }

    private func forget(_ index: Int32) {
        entries[index]?.call?.cancel()
        entries[index]?.recheck?.cancel()
        entries[index] = nil
    }

    private func forgetAll() {
        for index in Array(entries.keys) { forget(index) }
    }

    private func check(_ index: Int32) {
        guard var entry = entries[index], entry.call == nil else { return }
        let request = ProbeRequest(
            uri: settings.uri, interface: entry.attachment.name, response: settings.response)
        let checker = UncheckedTransfer(self)
        let attachment = entry.attachment
        let call = ProbeCall(loop: loop, socketPath: probeSocket, request: request) { result in
            checker.value.finish(index: index, attachment: attachment, result: result)
        }
        entry.call = call
        entry.recheck = nil
        entries[index] = entry
        // Quiet while no probe is installed: the retries would say the same every time.
        if !saidProbeMissing {
            logger.debug(
                "checking connectivity", metadata: ["interface": "\(attachment.name)", "uri": "\(settings.uri)"])
        }
        call.start()
    }

    private func finish(index: Int32, attachment: Attachment, result: Result<ProbeAnswer, ProbeCallError>) {
        // A check of a network the interface has left (forgotten meanwhile) is not this one's.
        guard var entry = entries[index], entry.attachment == attachment else { return }
        entry.call = nil
        let name = attachment.name
        switch result {
        case .success(let answer):
            saidProbeMissing = false
            entry.probeFailures = 0
            let state: CaptivePortal =
                switch answer.verdict {
                case .open: .open
                case .portal: .captive
                case .limited: .limited
                }
            entry.unanswered = state == .open ? 0 : entry.unanswered + 1
            let delay =
                state == .open
                ? settings.interval
                : RetryBackoff(first: min(Self.firstRetry, settings.interval), longest: settings.interval)
                    .delay(afterFailures: entry.unanswered)
            // Made only for a line that is written (swift-log takes it as an autoclosure): a verdict that did not
            // change is a debug line, and a dictionary of four formatted strings made for nothing at every check.
            func metadata() -> Logger.Metadata {
                var metadata: Logger.Metadata = [
                    "interface": "\(name)", "connectivity": "\(state)", "detail": "\(answer.detail)",
                    "nextCheckIn": "\(delay.components.seconds)s",
                ]
                if let location = answer.location { metadata["location"] = "\(location)" }
                return metadata
            }
            let changed = entry.state != state
            // A new verdict at info; the same one again only for debugging.
            logger.log(level: changed ? .info : .debug, "connectivity checked", metadata: metadata())
            entry.state = state
            entry.recheck = schedule(index, after: delay)
            entries[index] = entry
            if changed { onChange() }
        case .failure(let error):
            entry.probeFailures += 1
            let delay = Self.probeRetries.delay(afterFailures: entry.probeFailures)
            entry.recheck = schedule(index, after: delay)
            entries[index] = entry
            // Made only for a line that is written: a missing probe is said once, and its error's text was
            // formatted at every check after.
            func metadata() -> Logger.Metadata {
                ["interface": "\(name)", "reason": "\(error)", "retryIn": "\(delay.components.seconds)s"]
            }
            if error.isProbeMissing {
                // No probe installed (or its socket stopped): said once, not per interface and check.
                if !saidProbeMissing {
                    logger.notice("connectivity not checked: no probe at \(probeSocket)", metadata: metadata())
                }
                saidProbeMissing = true
            } else {
                logger.warning("connectivity check failed", metadata: metadata())
            }
        }
    }

    private func schedule(_ index: Int32, after delay: Duration) -> SDEventSource? {
        let checker = UncheckedTransfer(self)
        do {
            return try loop.schedule(after: delay) { checker.value.check(index) }
        } catch {
            logger.warning("cannot time the next connectivity check: \(error)")
            return nil
        }
    }
}
