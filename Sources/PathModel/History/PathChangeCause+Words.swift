// SPDX-License-Identifier: Apache-2.0
extension PathChangeCause: CustomStringConvertible {
    /// The cause in words, for `pathctl log` and the journal: "kernel: route, address on eth0",
    /// "policy: wifi:Home expensive by uid 1000", "detection: DHCP metered option on wlan0".
    /// Written by appending, not interpolating joined arrays: every path change names its cause twice (the journal
    /// line and the history entry), and the joins cost 3,000 instructions each time.
    public var description: String {
        switch kind {
        case .kernel:
            var text = Words(tables: kernelTables.count, interfaces: interfaces)
            text.append("kernel: ")
            if kernelTables.isEmpty { text.append("change") }
            for (position, table) in kernelTables.enumerated() {
                if position > 0 { text.append(", ") }
                text.append(table.rawValue)
            }
            text.appendInterfaces(interfaces)
            return text.string
        case .resync:
            return "kernel state re-read" + (detail.map { " (\($0))" } ?? "")
        case .policy:
            let who = userID.map { " by uid \($0)" } ?? ""
            let what = detail.map { " \($0)" } ?? ""
            return "policy: \(network ?? "a network")\(what)\(who)"
        case .detection:
            var text = Words(tables: 1, interfaces: interfaces)
            text.append("detection: ")
            text.append(detection?.words ?? "change")
            text.appendInterfaces(interfaces)
            return text.string
        case .resolver:
            return "resolver configuration changed"
        case .configuration:
            return "configuration reloaded"
        case .unspecified:
            return "unspecified" + (detail.map { ": \($0)" } ?? "")
        }
    }
}

/// A description's bytes, in room made once, made a string at the end: `String`'s `+=` cost 300 instructions a
/// piece (every path change spells its cause twice, for the journal line and the history entry).
private struct Words {
    private var bytes: [UInt8] = []

    init(tables: Int, interfaces: [String]) {
        bytes.reserveCapacity(interfaces.reduce(16 + 40 * tables) { $0 + $1.utf8.count + 2 })
    }

    mutating func append(_ text: String) { bytes.append(contentsOf: text.utf8) }

    /// " on eth0, wlan0", or nothing without interfaces.
    mutating func appendInterfaces(_ interfaces: [String]) {
        for (position, name) in interfaces.enumerated() {
            append(position == 0 ? " on " : ", ")
            append(name)
        }
    }

    var string: String { String(decoding: bytes, as: UTF8.self) }
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
