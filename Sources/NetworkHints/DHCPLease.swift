// SPDX-License-Identifier: Apache-2.0
/// The parts of a DHCPv4 lease that say something about cost, as one of the Linux DHCP clients saved it.
public struct DHCPLease: Sendable, Hashable {
    /// Which program wrote the lease.
    public enum Writer: String, Sendable, Hashable {
        /// systemd-networkd (/run/systemd/netif/leases/IFINDEX).
        case networkd
        /// NetworkManager's internal client (internal-UUID-IFACE.lease).
        case networkManagerInternal
        /// ISC dhclient, on its own or run by NetworkManager or ifupdown.
        case dhclient
    }

    /// The marker Android's tethering DHCP server puts in option 43 when the upstream is metered. Android's
    /// `DhcpResults.hasMeteredHint()` and NetworkManager (`memmem` over the raw option, in both its internal
    /// clients, and `strstr` over dhclient's text) look for it anywhere in the option, not as a sub-option TLV.
    public static let androidMeteredMarker: [UInt8] = Array("ANDROID_METERED".utf8)

    /// The program that wrote the lease.
    public var writer: Writer
    /// The interface name, when the file says it (dhclient) or its name does (NetworkManager).
    public var interfaceName: String?
    /// The interface index, when the file is named by it (networkd).
    public var interfaceIndex: Int32?
    /// The leased IPv4 address in dotted-quad form.
    public var address: String?
    /// The subnet mask in dotted-quad form.
    public var netmask: String?
    /// The first router (option 3) in dotted-quad form.
    public var router: String?
    /// The raw bytes of option 43 (vendor-specific information).
    public var vendorSpecific: [UInt8]?
    /// When the lease runs out, in seconds since the epoch; nil when the file does not say or the lease never
    /// expires.
    public var expiry: Int64?
    /// The captive-portal API URI (RFC 8910, option 114), as the client recorded it; nil when absent or not a
    /// plausible URI (`CaptivePortalHint.isValidURI`).
    public var captivePortal: String?

    /// A lease as parsed; every field but the writer optional.
    public init(
        writer: Writer, interfaceName: String? = nil, interfaceIndex: Int32? = nil, address: String? = nil,
        netmask: String? = nil, router: String? = nil, vendorSpecific: [UInt8]? = nil, expiry: Int64? = nil
    ) {
        self.writer = writer
        self.interfaceName = interfaceName
        self.interfaceIndex = interfaceIndex
        self.address = address
        self.netmask = netmask
        self.router = router
        self.vendorSpecific = vendorSpecific
        self.expiry = expiry
    }

    /// Whether the server marked the network metered: "ANDROID_METERED" anywhere in option 43.
    public var isMetered: Bool {
        guard let vendorSpecific else { return false }
        return vendorSpecific.contains(subsequence: Self.androidMeteredMarker)
    }

    /// Whether the lease is still valid at `now` (seconds since the epoch); a lease without an expiry is.
    public func isCurrent(at now: Int64) -> Bool {
        expiry.map { $0 > now } ?? true
    }
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs as a contiguous run: what memmem(3) answers.
    func contains(subsequence needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard count >= needle.count else { return false }
        for start in 0...(count - needle.count) where self[start] == needle[0] {
            if self[start..<start + needle.count].elementsEqual(needle) { return true }
        }
        return false
    }
}

/// Hexadecimal text as systemd's `hexmem` writes it (two digits a byte, no separators) and ISC dhclient as it
/// prints binary options (colon-separated, one or two digits a byte).
enum HexText {
    /// "414e44" → [0x41, 0x4e, 0x44]; nil for odd length or a non-hex digit.
    static func decodePacked(_ text: Substring) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    /// "41:4e:4" → [0x41, 0x4e, 0x04]; nil unless every group is one or two hex digits.
    static func decodeColonSeparated(_ text: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        for group in text.split(separator: ":", omittingEmptySubsequences: false) {
            let digits = Array(group.utf8)
            guard (1...2).contains(digits.count) else { return nil }
            var byte: UInt8 = 0
            for digit in digits {
                guard let value = nibble(digit) else { return nil }
                byte = byte << 4 | value
            }
            bytes.append(byte)
        }
        return bytes
    }

    static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
