// SPDX-License-Identifier: Apache-2.0
import Logging
import Netlink
import PathModel

/// Feeds Wi-Fi associations (nl80211) into the hub as network identities: connecting, roaming to another SSID and
/// disconnecting change the interface's network, and with it the policy that applies, at once.
struct WiFiIdentityService {
    let source: any WiFiIdentitySource
    let hub: PathHub
    let logger: Logger

    /// Starts following associations; without Wi-Fi (no nl80211) it says so once and does nothing.
    func start() {
        if case .unavailable(let reason) = source.support {
            logger.info("no Wi-Fi identities: \(reason)")
            return
        }
        let hub = hub
        let logger = logger
        source.start { association in
            let identity = association.ssid.map { NetworkIdentity.wifi(ssid: $0) }
            logger.info(
                "Wi-Fi association",
                metadata: [
                    "interface": "\(association.interfaceIndex)", "network": "\(identity?.displayName ?? "none")",
                ])
            hub.updateContext(cause: .detected(.wifi, interfaces: [association.interfaceIndex])) {
                $0.identities[association.interfaceIndex] = identity
            }
        }
    }

    func stop() {
        source.stop()
    }
}
