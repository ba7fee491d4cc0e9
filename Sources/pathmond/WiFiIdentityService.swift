import Logging
import Netlink
import PathModel
import ServiceLifecycle

/// Feeds Wi-Fi associations (nl80211) into the hub as network identities: connecting, roaming to another SSID and
/// disconnecting change the interface's network, and with it the policy that applies, at once.
struct WiFiIdentityService: Service {
    let source: any WiFiIdentitySource
    let hub: PathHub
    let logger: Logger

    func run() async {
        if case .unavailable(let reason) = await source.support() {
            logger.info("no Wi-Fi identities: \(reason)")
            return
        }
        for await association in source.associations().cancelOnGracefulShutdown() {
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
}
