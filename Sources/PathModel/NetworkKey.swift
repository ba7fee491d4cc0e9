// SPDX-License-Identifier: Apache-2.0
/// The key a network is remembered by: "wifi:" followed by the escaped SSID, "cellular:" and a subscriber hash, or
/// "wired:" and the gateway's link-layer address. Escaping is lossless: every SSID has exactly one key.
public struct NetworkKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The medium the key belongs to.
    public enum Kind: String, Sendable, HashedByCase, CaseIterable {
        case wifi
        case cellular
        case wired
    }

    /// The medium.
    public let kind: Kind
    /// The part after the colon.
    public let value: String

    init(kind: Kind, value: String) {
        self.kind = kind
        self.value = value
    }

    /// The longest key, in UTF-8 bytes: a Wi-Fi key of a 32-byte SSID with every byte escaped ("wifi:" and 96),
    /// and a wired key of the longest link-layer address the kernel has (MAX_ADDR_LEN, 32 bytes: "wired:" and
    /// 95), both fit, and so does any cellular key pathmond derives. Anything longer is garbage or an attack on
    /// the daemon's memory and its replies' size.
    public static let maximumLength = 128

    /// Parses "kind:value"; nil for an unknown kind, an empty value, a key longer than `maximumLength`, or (Wi-Fi)
    /// a malformed escape.
    public init?(_ text: String) {
        guard text.utf8.count <= Self.maximumLength, let colon = text.firstIndex(of: ":"),
            let kind = Kind(rawValue: String(text[..<colon]))
        else {
            return nil
        }
        var value = String(text[text.index(after: colon)...])
        guard !value.isEmpty || kind == .wifi else { return nil }
        if kind == .wired {
            // Identities spell link-layer addresses in lower case; a key typed in upper case must match them.
            value = value.lowercased()
            let octets = value.split(separator: ":", omittingEmptySubsequences: false)
            guard octets.count >= 6, octets.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isHexDigit) }) else {
                return nil
            }
        }
        if kind == .wifi {
            guard let bytes = Self.unescape(value), bytes.count <= 32, Self.escape(bytes) == value else { return nil }
        }
        self.init(kind: kind, value: value)
    }

    /// "wifi:Home%20Net".
    public var description: String { "\(kind.rawValue):\(value)" }

    public static func < (lhs: NetworkKey, rhs: NetworkKey) -> Bool { lhs.description < rhs.description }

    /// The SSID bytes of a Wi-Fi key.
    public var ssid: [UInt8]? { kind == .wifi ? Self.unescape(value) : nil }

    /// Printable ASCII stays as it is, except "%"; every other byte becomes %XX (upper-case hex).
    static func escape(_ bytes: [UInt8]) -> String {
        var text = ""
        for byte in bytes {
            if byte > 0x20 && byte < 0x7f && byte != UInt8(ascii: "%") {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                text += "%" + hexDigit(byte >> 4) + hexDigit(byte & 0xf)
            }
        }
        return text
    }

    static func unescape(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// An SSID for display: as text if it is valid UTF-8 that a person sees as itself (`HiddenText`: no control,
    /// bidirectional or invisible characters), else the escaped form.
    static func displaySSID(_ ssid: [UInt8]) -> String {
        if let text = String(validating: ssid, as: UTF8.self), HiddenText.isVisible(text) { return text }
        return escape(ssid)
    }

    private static func hexDigit(_ value: UInt8) -> String {
        String(value, radix: 16, uppercase: true)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
