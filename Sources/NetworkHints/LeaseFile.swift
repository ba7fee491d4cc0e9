// SPDX-License-Identifier: Apache-2.0
import JSON

/// Pure parsers for the lease files Linux DHCP clients leave behind. Each returns what it could read and skips
/// what it could not, line by line, the way the clients' own loaders do ("…, ignoring").
public enum LeaseFile {
    /// A systemd-networkd lease (/run/systemd/netif/leases/IFINDEX), in either of the two formats networkd has
    /// written: the environment-style file of `dhcp_lease_save()` up to v257 ("# This is private data. Do not
    /// parse." then ADDRESS=, NETMASK=, ROUTER=, VENDOR_SPECIFIC=<hexmem> …), or the JSON object newer releases
    /// write ("Address", "Vendor_Specific": "<hex>", …). Nil when the text is neither.
    public static func parseNetworkd(_ text: String, interfaceIndex: Int32? = nil) -> DHCPLease? {
        let lease: DHCPLease?
        if text.first(where: { !$0.isWhitespace }) == "{" {
            lease = parseNetworkdJSON(text)
        } else {
            lease = parseEnvironmentStyle(text, writer: .networkd)
        }
        return lease.map { lease in
            var lease = lease
            lease.interfaceIndex = interfaceIndex
            return lease
        }
    }

    /// A NetworkManager internal-client lease (internal-UUID-IFACE.lease under /var/lib/NetworkManager). Up to
    /// NetworkManager 1.20 the internal client was systemd's sd-dhcp, which saved the full environment-style lease
    /// with VENDOR_SPECIFIC; the n-dhcp4 client since then saves only ADDRESS=, so a modern file can never say
    /// "metered" (NetworkManager keeps that in memory and exposes it as Device.Metered over D-Bus).
    public static func parseNetworkManagerInternal(_ text: String, interface: String?) -> DHCPLease? {
        guard var lease = parseEnvironmentStyle(text, writer: .networkManagerInternal) else { return nil }
        lease.interfaceName = interface
        return lease
    }

    /// The interface of a NetworkManager lease file name: "internal-<36-character UUID>-IFACE.lease" or
    /// "dhclient-<UUID>-IFACE.lease" (the dhclient plugin); nil for DHCPv6 ("internal6-", "dhclient6-") and
    /// anything else.
    public static func networkManagerInterface(fileName: String) -> (writer: DHCPLease.Writer, interface: String)? {
        let prefixes: [(String, DHCPLease.Writer)] = [("internal-", .networkManagerInternal), ("dhclient-", .dhclient)]
        guard fileName.hasSuffix(".lease"),
            let (prefix, writer) = prefixes.first(where: { fileName.hasPrefix($0.0) })
        else { return nil }
        let rest = fileName.dropFirst(prefix.count).dropLast(".lease".count)
        // Profiles are named by a canonical UUID (8-4-4-4-12 = 36 characters) followed by "-".
        guard rest.count > 37, rest[rest.index(rest.startIndex, offsetBy: 36)] == "-" else { return nil }
        let interface = rest.dropFirst(37)
        guard !interface.contains("/") else { return nil }
        return (writer, String(interface))
    }

    /// KEY=VALUE lines as systemd's `parse_env_file` reads them: "#" and ";" start comments, surrounding quotes
    /// are dropped, a line without "=" is skipped. Nil when no key we know is present.
    static func parseEnvironmentStyle(_ text: String, writer: DHCPLease.Writer) -> DHCPLease? {
        var lease = DHCPLease(writer: writer)
        var recognised = false
        for (key, value) in EnvironmentFile.pairs(text) {
            switch key {
            case "ADDRESS": lease.address = IPv4Text.validated(value)
            case "NETMASK": lease.netmask = IPv4Text.validated(value)
            // ROUTER holds every router, space-separated; the first is the one used.
            case "ROUTER": lease.router = value.split(separator: " ").first.flatMap(IPv4Text.validated)
            // systemd logs and ignores a VENDOR_SPECIFIC it cannot decode; so do we.
            case "VENDOR_SPECIFIC": lease.vendorSpecific = HexText.decodePacked(value)
            default: continue
            }
            recognised = true
        }
        return recognised ? lease : nil
    }

    /// The JSON lease of newer networkd: addresses are arrays of four numbers, binary data is a hex string.
    static func parseNetworkdJSON(_ text: String) -> DHCPLease? {
        guard let object = try? JSONValueDecoder().decode(NetworkdJSONLease.self, from: Array(text.utf8)) else {
            return nil
        }
        return DHCPLease(
            writer: .networkd, address: object.address, netmask: object.netmask, router: object.router,
            vendorSpecific: object.vendorSpecific.flatMap { HexText.decodePacked($0[...]) })
    }
}

/// The fields of networkd's JSON lease that matter here, each decoded on its own so one odd field does not cost
/// the others.
private struct NetworkdJSONLease: Decodable {
    var address: String?
    var netmask: String?
    var router: String?
    var vendorSpecific: String?

    private enum Key: String, CodingKey {
        case address = "Address"
        case netmask = "Netmask"
        case router = "Router"
        case vendorSpecific = "Vendor_Specific"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        address = (try? container.decodeIfPresent([UInt8].self, forKey: .address)).flatMap { IPv4Text.text(bytes: $0) }
        netmask = (try? container.decodeIfPresent([UInt8].self, forKey: .netmask)).flatMap { IPv4Text.text(bytes: $0) }
        router = (try? container.decodeIfPresent([[UInt8]].self, forKey: .router))??.first.flatMap {
            IPv4Text.text(bytes: $0)
        }
        vendorSpecific = try? container.decodeIfPresent(String.self, forKey: .vendorSpecific)
    }
}

/// Dotted-quad text, checked rather than trusted.
enum IPv4Text {
    /// "192.168.1.2" when `text` is four decimal octets; nil otherwise.
    static func validated<Text: StringProtocol>(_ text: Text) -> String? {
        octets(text).map { $0.map(String.init).joined(separator: ".") }
    }

    /// Four octets from dotted-quad text.
    static func octets<Text: StringProtocol>(_ text: Text) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var octets: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCII), let value = UInt8(part) else { return nil }
            octets.append(value)
        }
        return octets
    }

    /// Text from four bytes; nil for any other count.
    static func text(bytes: [UInt8]?) -> String? {
        guard let bytes, bytes.count == 4 else { return nil }
        return bytes.map(String.init).joined(separator: ".")
    }
}
