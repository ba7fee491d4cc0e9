// SPDX-License-Identifier: Apache-2.0
extension PathChangeCause: CustomStringConvertible {
    /// The cause in words, for `pathctl log` and the journal: "kernel: route, address on eth0",
    /// "policy: wifi:Home expensive by uid 1000", "detection: DHCP metered option on wlan0".
    /// Written by appending, not interpolating joined arrays: every path change names its cause twice (the journal
    /// line and the history entry), and the joins cost 3,000 instructions each time.
    public var description: String {
        switch kind {
        case .kernel:
            return Words.spell { text in
                text.append("kernel: ")
                if kernelTables.isEmpty { text.append("change") }
                for (position, table) in kernelTables.enumerated() {
                    if position > 0 { text.append(", ") }
                    text.append(table.rawValue)
                }
                text.appendInterfaces(interfaces)
            }
        case .resync:
            return "kernel state re-read" + (detail.map { " (\($0))" } ?? "")
        case .policy:
            let who = userID.map { " by uid \($0)" } ?? ""
            let what = detail.map { " \($0)" } ?? ""
            return "policy: \(network ?? "a network")\(what)\(who)"
        case .detection:
            return Words.spell { text in
                text.append("detection: ")
                text.append(detection?.words ?? "change")
                text.appendInterfaces(interfaces)
            }
        case .resolver:
            return "resolver configuration changed"
        case .configuration:
            return "configuration reloaded"
        case .unspecified:
            return "unspecified" + (detail.map { ": \($0)" } ?? "")
        }
    }
}

/// A description written straight into the string's own storage: the words are spelled twice, once to count their
/// bytes and once to copy them. Every path change spells its cause twice (the journal line and the history entry);
/// `String`'s `+=` cost 300 instructions a piece, and bytes gathered in an array then decoded 1,700 a description.
private struct Words {
    private let room: UnsafeMutableBufferPointer<UInt8>?
    private(set) var count = 0

    /// The text `write` spells.
    static func spell(_ write: (inout Words) -> Void) -> String {
        var counted = Words(room: nil)
        write(&counted)
        return String(unsafeUninitializedCapacity: counted.count) { room in
            var text = Words(room: room)
            write(&text)
            return text.count
        }
    }

    private init(room: UnsafeMutableBufferPointer<UInt8>?) { self.room = room }

    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            if let room, let source = utf8.baseAddress {
                (room.baseAddress! + count).update(from: source, count: utf8.count)
            }
            count += utf8.count
        }
    }

    /// " on eth0, wlan0", or nothing without interfaces.
    mutating func appendInterfaces(_ interfaces: [String]) {
        for (position, name) in interfaces.enumerated() {
            append(position == 0 ? " on " : ", ")
            append(name)
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
