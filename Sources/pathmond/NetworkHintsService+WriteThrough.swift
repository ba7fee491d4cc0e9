// SPDX-License-Identifier: Apache-2.0
import Logging
import NetworkHints
import PathModel
import SDEvent

/// `[networkmanager] write-metered`: pathmond's verdicts written through to NetworkManager, so that programs that ask
/// NetworkManager (Qt's QNetworkInformation, snapd, GNOME Settings, unattended-upgrades) see them.
extension NetworkHintsService {
    func makeMeteredWriter() -> NetworkManagerMeteredWriter {
        let logger = logger
        let service = UncheckedTransfer(self)
        return NetworkManagerMeteredWriter(
            report: { Self.log($0, logger: logger) },
            onDiscountChange: { service.value.sourceChanged() })
    }

    /// Turns write-through on or off (configuration reload); off gives back what was written. On the main loop.
    func setWritesMetered(_ enabled: Bool) {
        guard enabled != writesMetered else { return }
        writesMetered = enabled
        sourceChanged()
    }

    /// The path changed (a policy, a detection): pathmond's reasons may have. Any thread. On the loop (every
    /// kernel change) it looks at once: with nothing written through, the common case, a job queued for a later
    /// turn cost each path change an eventfd write, a wake-up and a read for nothing.
    func pathChanged() {
        guard loop.inLoop else {
            let service = UncheckedTransfer(self)
            loop.execute { service.value.pathChanged() }
            return
        }
        guard let meteredWriter, writesMetered || !meteredWriter.discounted.isEmpty else { return }
        // Queues the write for a later turn: never inside the hub's update that called this. Only the verdicts
        // moved: the look-ups of leases, portals and modems are not made again for them.
        verdictsChanged()
    }

    /// pathmond's own reasons, interface by interface: constrained, or expensive for a reason other than
    /// NetworkManager's Metered.
    func writeMetered(_ interfaces: [InterfaceStatus], devices: [String: NetworkManagerMetered]) {
        guard let meteredWriter else { return }
        let wanted = Set(
            interfaces.filter { $0.isConstrained || ($0.isExpensive && $0.expensiveSource != .networkManager) }
                .map(\.link.name))
        meteredWriter.update(enabled: writesMetered, wanted: wanted, devices: devices)
    }

    /// At stop: everything written is given back before the bus closes (waiting for NetworkManager's answers).
    func restoreWrittenMetered() {
        guard let meteredWriter else { return }
        let writer = UncheckedTransfer(meteredWriter)
        loop.sync { writer.value.restoreAllNow() }
    }

    private static func log(_ report: NetworkManagerMeteredWriter.Report, logger: Logger) {
        let before = report.before.map { "\($0)" } ?? "unknown"
        let after = report.after.map { "\($0)" } ?? "unknown"
        var metadata = JournalRecord.meteredWrittenThrough.metadata([
            .interface: report.interface, .networkManagerBefore: before, .networkManagerAfter: after,
        ])
        metadata["interface"] = "\(report.interface)"
        switch report.kind {
        case .wrote:
            logger.notice("NetworkManager's connection on \(report.interface) set metered \(after)", metadata: metadata)
        case .restored:
            let why = report.detail.isEmpty ? "" : " (\(report.detail))"
            logger.notice(
                "NetworkManager's connection on \(report.interface) given back metered \(after)\(why)",
                metadata: metadata)
        case .leftAlone:
            let text = "NetworkManager's connection on \(report.interface) left alone: \(report.detail)"
            logger.notice("\(text); pathmond finds it expensive or constrained", metadata: metadata)
        case .failed:
            logger.warning(
                "cannot set NetworkManager's metered on \(report.interface) to \(after): \(report.detail)",
                metadata: metadata)
        }
    }
}
