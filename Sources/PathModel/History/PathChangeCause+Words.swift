// SPDX-License-Identifier: Apache-2.0
extension PathChangeCause: CustomStringConvertible {
    /// The cause in words, for `pathctl log` and the journal: "kernel: route, address on eth0",
    /// "policy: wifi:Home expensive by uid 1000", "detection: DHCP metered option on wlan0".
    public var description: String {
        let on = interfaces.isEmpty ? "" : " on " + interfaces.joined(separator: ", ")
        switch kind {
        case .kernel:
            let tables = kernelTables.map(\.rawValue).joined(separator: ", ")
            return "kernel: \(tables.isEmpty ? "change" : tables)\(on)"
        case .resync:
            return "kernel state re-read" + (detail.map { " (\($0))" } ?? "")
        case .policy:
            let who = userID.map { " by uid \($0)" } ?? ""
            let what = detail.map { " \($0)" } ?? ""
            return "policy: \(network ?? "a network")\(what)\(who)"
        case .detection:
            return "detection: \(detection?.words ?? "change")\(on)"
        case .resolver:
            return "resolver configuration changed"
        case .configuration:
            return "configuration reloaded"
        case .unspecified:
            return "unspecified" + (detail.map { ": \($0)" } ?? "")
        }
    }
}

extension PathChangeCause.Detection {
    /// What was detected, in words.
    public var words: String {
        switch self {
        case .dhcpMetered: return "DHCP metered option"
        case .networkManagerMetered: return "NetworkManager Metered"
        case .cellular: return "cellular network (SIM)"
        case .wifi: return "Wi-Fi network"
        case .identityForgotten: return "identities of removed links forgotten"
        case .captivePortal: return "captive portal"
        case .linkQuality: return "link quality"
        }
    }
}
