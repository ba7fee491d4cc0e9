// SPDX-License-Identifier: Apache-2.0
import Logging
import Netlink
import PathModel

/// Feeds Wi-Fi link figures (nl80211 station information, refreshed on association and connection-quality events)
/// into the hub; only a change `LinkQuality.differsSignificantly` reaches the path.
struct WiFiQualityService {
    let source: any WiFiQualitySource
    let hub: PathHub
    let logger: Logger

    /// Starts following; without Wi-Fi (no nl80211) it does nothing (the identity service has said why).
    func start() {
        guard source.support == .available else { return }
        let hub = hub
        let logger = logger
        source.start { update in
            let index = update.interfaceIndex
            let current = hub.linkQualities[index]
            guard update.quality.map({ $0.differsSignificantly(from: current) }) ?? (current != nil) else { return }
            logger.info(
                "Wi-Fi link quality",
                metadata: ["interface": "\(index)", "grade": "\(update.quality?.grade.rawValue ?? "none")"])
            hub.updateContext(cause: .detected(.linkQuality, interfaces: [index])) {
                $0.linkQualities[index] = update.quality
            }
        }
    }

    func stop() {
        source.stop()
    }
}
