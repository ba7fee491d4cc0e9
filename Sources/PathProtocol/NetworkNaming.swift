// SPDX-License-Identifier: Apache-2.0
import PathModel

/// What a network is called for people, everywhere pathmond shows one: the user's name for it when they gave one
/// (`pathctl name`), else a description they recognise: the SSID, or for a wired network its gateway's IP address
/// as the routing table shows it, with the link-layer address that actually identifies it in parentheses.
public enum NetworkNaming {
    /// The name of `identity`; `gateway` is the default gateway the attached interface routes through, if any.
    public static func displayName(of identity: NetworkIdentity, gateway: IPAddress?, policy: Policy) -> String {
        if let name = policy[identity.key].name { return name }
        guard case .wired(let hardwareAddress) = identity else { return identity.displayName }
        let address = hardwareAddress.lowercased()
        guard let gateway else { return "wired network with gateway \(address)" }
        return "wired network via gateway \(gateway) (\(address))"
    }

    /// The gateway an interface's network is identified by: that of its preferred default route.
    public static func gateway(of status: InterfaceStatus) -> IPAddress? {
        status.routes.lazy.compactMap(\.gateway).first
    }
}
