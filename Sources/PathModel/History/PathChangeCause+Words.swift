// SPDX-License-Identifier: Apache-2.0
extension PathChangeCause: CustomStringConvertible {
    /// The cause in words, for `pathctl log` and the journal: "kernel: route, address on eth0",
    /// "policy: wifi:Home expensive by uid 1000", "detection: DHCP metered option on wlan0".
    /// Written by appending, not interpolating joined arrays: every path change names its cause twice (the journal
    /// line and the history entry), and the joins cost 3,000 instructions each time.
    public var description: String {
        switch kind {
        case .kernel:
            // Room made once: appended piece by piece, the text outgrew its storage two or three times (every path
            // change's log line and history entry spell it).
            var text = ""
            text.reserveCapacity(Self.roomForWords(kernelTables.count, interfaces))
            text += "kernel: "
            if kernelTables.isEmpty { text += "change" }
            for (position, table) in kernelTables.enumerated() {
                if position > 0 { text += ", " }
                text += table.rawValue
            }
            appendInterfaces(to: &text)
            return text
        case .resync:
            return "kernel state re-read" + (detail.map { " (\($0))" } ?? "")
        case .policy:
            let who = userID.map { " by uid \($0)" } ?? ""
            let what = detail.map { " \($0)" } ?? ""
            return "policy: \(network ?? "a network")\(what)\(who)"
        case .detection:
            var text = ""
            text.reserveCapacity(Self.roomForWords(1, interfaces))
            text += "detection: "
            text += detection?.words ?? "change"
            appendInterfaces(to: &text)
            return text
        case .resolver:
            return "resolver configuration changed"
        case .configuration:
            return "configuration reloaded"
        case .unspecified:
            return "unspecified" + (detail.map { ": \($0)" } ?? "")
        }
    }

    /// " on eth0, wlan0", or nothing without interfaces.
    /// Enough bytes for a description with `words` words (a table's name, a detection's words) and `interfaces`.
    private static func roomForWords(_ words: Int, _ interfaces: [String]) -> Int {
        interfaces.reduce(16 + 40 * words) { $0 + $1.utf8.count + 2 }
    }

    private func appendInterfaces(to text: inout String) {
        for (position, name) in interfaces.enumerated() {
            text += position == 0 ? " on " : ", "
            text += name
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
        case .dataLimit: return "data limit"
        }
    }
}
