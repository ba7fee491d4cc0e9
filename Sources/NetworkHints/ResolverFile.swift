// SPDX-License-Identifier: Apache-2.0
import PathModel

/// Pure parsers for the files that say which DNS servers the machine's resolver uses: resolv.conf(5), and the
/// state files of systemd-resolved and systemd-networkd. Each returns what it could read and skips what it could
/// not, line by line, as the programs' own loaders do.
public enum ResolverFile {
    /// The addresses of systemd-resolved's stub listeners: 127.0.0.53 (the full resolver) and 127.0.0.54 (its
    /// proxy-only listener). Neither is a server of its own; behind them are resolved's upstream servers.
    public static let resolvedStubAddresses: Set<IPAddress> = [
        IPAddress(bytes: [127, 0, 0, 53])!,  // Four bytes: always an address.
        IPAddress(bytes: [127, 0, 0, 54])!,
    ]

    /// The `nameserver` addresses of a resolv.conf, in order, read as glibc's `res_init` reads them: the keyword
    /// starts the line and is followed by a space or a tab; whatever follows the address is ignored; a line that
    /// starts with `#` or `;` is a comment; every other keyword (`search`, `options`, …) is ignored. An IPv6 zone
    /// (`fe80::1%eth0`) is dropped and the address kept: `ResolverConfiguration` holds bare addresses, and the
    /// zone names an interface the model keys by index. A line whose address does not parse is skipped.
    public static func nameservers(resolvConf text: String) -> [IPAddress] {
        var servers: [IPAddress] = []
        let keyword = Array("nameserver".utf8)
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        // Bytes, not Characters: every byte that matters is ASCII (see `EnvironmentFile`).
        for line in text.utf8.split(whereSeparator: { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) {
            guard line.starts(with: keyword), let separator = line.dropFirst(keyword.count).first, isBlank(separator)
            else { continue }
            let rest = line.dropFirst(keyword.count).drop(while: isBlank)
            let token = rest.prefix { !isBlank($0) && $0 != UInt8(ascii: "%") }
            if let address = IPAddress(String(Substring(token))) { servers.append(address) }
        }
        return servers
    }

    /// One DNS server as systemd writes it in its state files (`in_addr_port_ifindex_name_to_string`): an address,
    /// then optionally `:PORT` (IPv6 in brackets then), `%IFINDEX` for a link-local IPv6 server, and `#NAME` for
    /// DNS-over-TLS. Only the address is kept; nil when there is none.
    public static func serverAddress(systemdText text: Substring) -> IPAddress? {
        var text = text.prefix { $0 != "#" }
        if text.first == "[" {
            // "[2001:db8::53]:853" or "[fe80::1]:853%3": the address is what the brackets hold.
            guard let close = text.firstIndex(of: "]") else { return nil }
            text = text[text.index(after: text.startIndex)..<close]
        } else if text.contains(".") {
            // IPv4, possibly "192.0.2.53:853": the port follows the only colon.
            text = text.prefix { $0 != ":" }
        }
        return IPAddress(String(text.prefix { $0 != "%" }))
    }

    /// A link's file in systemd-resolved's /run/systemd/resolve/netif/IFINDEX (`link_save_user`): settings given
    /// to resolved over D-Bus, by NetworkManager or `resolvectl`, for links networkd does not manage. `SERVERS=`
    /// lists the servers, `DOMAINS=` the domains with `~` before route-only ones, `DEFAULT_ROUTE=` is written only
    /// when set explicitly.
    public static func resolvedLink(_ text: String) -> ResolverLinkSettings {
        var settings = ResolverLinkSettings()
        for (key, value) in environment(text) {
            switch key {
            case "SERVERS": settings.servers += servers(value)
            case "DOMAINS":
                for domain in value.split(separator: " ") {
                    if domain.hasPrefix("~") {
                        settings.routeOnlyDomains.append(String(domain.dropFirst()))
                    } else {
                        settings.searchDomains.append(String(domain))
                    }
                }
            case "DEFAULT_ROUTE": settings.defaultRoute = boolean(value) ?? settings.defaultRoute
            default: continue
            }
        }
        return settings
    }

    /// A link's file in systemd-networkd's /run/systemd/netif/links/IFINDEX (`link_save`), which resolved reads for
    /// the links networkd manages: `DNS=` lists the servers, `DOMAINS=` the search domains, `ROUTE_DOMAINS=` the
    /// route-only ones (without `~`), `DNS_DEFAULT_ROUTE=` is written only when configured.
    public static func networkdLink(_ text: String) -> ResolverLinkSettings {
        var settings = ResolverLinkSettings()
        for (key, value) in environment(text) {
            switch key {
            case "DNS": settings.servers += servers(value)
            case "DOMAINS": settings.searchDomains += value.split(separator: " ").map(String.init)
            case "ROUTE_DOMAINS": settings.routeOnlyDomains += value.split(separator: " ").map(String.init)
            case "DNS_DEFAULT_ROUTE": settings.defaultRoute = boolean(value) ?? settings.defaultRoute
            default: continue
            }
        }
        return settings
    }

    /// Space-separated servers; one that does not parse is skipped, as resolved skips it ("…, ignoring").
    static func servers(_ value: Substring) -> [IPAddress] {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { serverAddress(systemdText: $0) }
    }

    /// KEY=VALUE lines in order (see `EnvironmentFile`).
    static func environment(_ text: String) -> [(key: Substring, value: Substring)] {
        EnvironmentFile.pairs(text)
    }

    /// systemd's `parse_boolean`, for the spellings its writers use and a few more; nil for anything else.
    static func boolean(_ value: Substring) -> Bool? {
        switch value.lowercased() {
        case "yes", "y", "true", "t", "on", "1": return true
        case "no", "n", "false", "f", "off", "0": return false
        default: return nil
        }
    }
}
