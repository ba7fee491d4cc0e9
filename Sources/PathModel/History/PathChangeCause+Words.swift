// SPDX-License-Identifier: Apache-2.0
/// Where a cause's words are spelled, piece by piece: a String's own storage (`description`), or straight into
/// the JSON string of a history entry (PathProtocol's writer), so that the words are never gathered in a String
/// of their own there. One spelling for both, so the entry's `description` is always the journal's words.
public protocol CauseWordsSink: ~Copyable {
    /// Appends text as it is (the sink escapes what it must).
    mutating func append(_ text: String)
    /// Appends words the code spells: constant bytes, no String made of them.
    mutating func append(constant text: StaticString)
}

extension PathChangeCause: CustomStringConvertible {
    /// The cause in words, for `pathctl log` and the journal: "kernel: route, address on eth0",
    /// "policy: wifi:Home expensive by uid 1000", "detection: DHCP metered option on wlan0".
    /// Written by appending, not interpolating joined arrays: every path change names its cause twice (the journal
    /// line and the history entry), and the joins cost 3,000 instructions each time.
    public var description: String {
        Words.spell { text in spell(into: &text) }
    }

    /// Spells `description` into a sink. Inlinable, so that the history writer's copy is made for its sink: through
    /// the protocol's table, each piece was a call and a String.
    @inlinable
    public func spell(into text: inout some CauseWordsSink & ~Copyable) {
        switch kind {
        case .kernel:
            text.append(constant: "kernel: ")
            if kernelTables.isEmpty { text.append(constant: "change") }
            for (position, table) in kernelTables.enumerated() {
                if position > 0 { text.append(constant: ", ") }
                text.append(table.rawValue)
            }
            Self.spellInterfaces(interfaces, into: &text)
        case .resync:
            text.append(constant: "kernel state re-read")
            if let detail {
                text.append(constant: " (")
                text.append(detail)
                text.append(constant: ")")
            }
        case .policy:
            text.append(constant: "policy: ")
            text.append(network ?? "a network")
            if let detail {
                text.append(constant: " ")
                text.append(detail)
            }
            if let userID {
                text.append(constant: " by uid ")
                text.append(String(userID))
            }
        case .detection:
            text.append(constant: "detection: ")
            text.append(detection?.words ?? "change")
            Self.spellInterfaces(interfaces, into: &text)
        case .resolver:
            text.append(constant: "resolver configuration changed")
        case .configuration:
            text.append(constant: "configuration reloaded")
        case .unspecified:
            text.append(constant: "unspecified")
            if let detail {
                text.append(constant: ": ")
                text.append(detail)
            }
        }
    }

    /// " on eth0, wlan0", or nothing without interfaces.
    @inlinable
    static func spellInterfaces(_ interfaces: [String], into text: inout some CauseWordsSink & ~Copyable) {
        for (position, name) in interfaces.enumerated() {
            if position == 0 {
                text.append(constant: " on ")
            } else {
                text.append(constant: ", ")
            }
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
        text.withUTF8 { append($0) }
    }

    mutating func append(constant text: StaticString) {
        text.withUTF8Buffer { append($0) }
    }

    private mutating func append(_ utf8: UnsafeBufferPointer<UInt8>) {
        if let room, let source = utf8.baseAddress {
            (room.baseAddress! + count).update(from: source, count: utf8.count)
        }
        count += utf8.count
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
