// SPDX-License-Identifier: Apache-2.0
/// Where a cause's words are spelled, piece by piece: a String's own storage (`description`), or straight into
/// the JSON string of a history entry (PathProtocol's writer), so that the words are never gathered in a String
/// of their own there. One spelling for both, so the entry's `description` is always the journal's words.
public protocol CauseWordsSink: ~Copyable {
    /// Appends text as it is (the sink escapes what it must).
    mutating func append(_ text: String)
}

extension PathChangeCause: CustomStringConvertible {
    /// The cause in words, for `pathctl log` and the journal: "kernel: route, address on eth0",
    /// "policy: wifi:Home expensive by uid 1000", "detection: DHCP metered option on wlan0".
    /// Written by appending, not interpolating joined arrays: every path change names its cause twice (the journal
    /// line and the history entry), and the joins cost 3,000 instructions each time.
    public var description: String {
        Words.spell { text in spell(into: &text) }
    }

    /// Spells `description` into a sink.
    public func spell(into text: inout some CauseWordsSink & ~Copyable) {
        switch kind {
        case .kernel:
            text.append("kernel: ")
            if kernelTables.isEmpty { text.append("change") }
            for (position, table) in kernelTables.enumerated() {
                if position > 0 { text.append(", ") }
                text.append(table.rawValue)
            }
            Self.spell(interfaces, into: &text)
        case .resync:
            text.append("kernel state re-read")
            if let detail {
                text.append(" (")
                text.append(detail)
                text.append(")")
            }
        case .policy:
            text.append("policy: ")
            text.append(network ?? "a network")
            if let detail {
                text.append(" ")
                text.append(detail)
            }
            if let userID {
                text.append(" by uid ")
                text.append(String(userID))
            }
        case .detection:
            text.append("detection: ")
            text.append(detection?.words ?? "change")
            Self.spell(interfaces, into: &text)
        case .resolver:
            text.append("resolver configuration changed")
        case .configuration:
            text.append("configuration reloaded")
        case .unspecified:
            text.append("unspecified")
            if let detail {
                text.append(": ")
                text.append(detail)
            }
        }
    }

    /// " on eth0, wlan0", or nothing without interfaces.
    private static func spell(_ interfaces: [String], into text: inout some CauseWordsSink & ~Copyable) {
        for (position, name) in interfaces.enumerated() {
            text.append(position == 0 ? " on " : ", ")
            text.append(name)
        }
    }
}

/// A description written straight into the string's own storage: the words are spelled twice, once to count their
/// bytes and once to copy them. Every path change spells its cause twice (the journal line and the history entry);
/// `String`'s `+=` cost 300 instructions a piece, and bytes gathered in an array then decoded 1,700 a description.
private struct Words: CauseWordsSink {
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
