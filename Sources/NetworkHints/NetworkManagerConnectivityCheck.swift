// SPDX-License-Identifier: Apache-2.0
import DBus

/// Whether NetworkManager's own connectivity check runs, from the manager's ConnectivityCheckEnabled and
/// ConnectivityCheckAvailable (NetworkManager 1.10 and later). With its check off or not configured (no URI:
/// Debian's default without network-manager-config-connectivity-debian), NetworkManager still reports FULL for
/// every activated device with a default route, which says nothing about a captive portal: the devices'
/// connectivity counts only while the check runs.
struct NetworkManagerConnectivityCheck: Hashable, Sendable {
    /// Nil until the manager's properties said.
    var isEnabled: Bool?
    /// Nil when not said; only `false` (no URI configured) stops the check.
    var isAvailable: Bool?

    /// Whether the devices' Ip4Connectivity and Ip6Connectivity are the check's.
    var runs: Bool { isEnabled == true && isAvailable != false }

    /// Takes the flags `properties` (a GetAll's, or a PropertiesChange's) carry; true if they said anything.
    @discardableResult
    mutating func apply(_ properties: [String: BusValue]) -> Bool {
        func flag(_ name: String) -> Bool? {
            guard case .boolean(let value)? = properties[name]?.unwrapped else { return nil }
            return value
        }
        let enabled = flag("ConnectivityCheckEnabled")
        let available = flag("ConnectivityCheckAvailable")
        if let enabled { isEnabled = enabled }
        if let available { isAvailable = available }
        return enabled != nil || available != nil
    }
}
