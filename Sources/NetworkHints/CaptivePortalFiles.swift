// SPDX-License-Identifier: Apache-2.0
import PathModel

/// The captive-portal API URI (RFC 8910) systemd-networkd records for each link, from DHCPv4 option 114, DHCPv6
/// option 103 or the router advertisement's option 37: `CAPTIVE_PORTAL=` in its link state file
/// (/run/systemd/netif/links/IFINDEX, networkd's `link_save`). Read whole whenever the directory changes; a
/// missing file or key is no portal, and an implausible value is ignored.
public struct CaptivePortalFiles: Sendable {
    /// networkd's link state directory, one file per interface index.
    public var networkdLinkDirectory: String

    public init(networkdLinkDirectory: String = "/run/systemd/netif/links") {
        self.networkdLinkDirectory = networkdLinkDirectory
    }

    /// The URI networkd recorded for each of `links` that has one, by index.
    public func networkdPortals(links: [Int32]) -> [Int32: String] {
        var result: [Int32: String] = [:]
        for index in links {
            guard let text = HintFiles.readText(networkdLinkDirectory + "/\(index)", maximumSize: 1 << 16),
                let uri = Self.captivePortal(linkState: text)
            else { continue }
            result[index] = uri
        }
        return result
    }

    /// `CAPTIVE_PORTAL=` of a link state file (the last one, as systemd's parser keeps), when it is a plausible URI.
    static func captivePortal(linkState text: String) -> String? {
        guard let value = EnvironmentFile.pairs(text).last(where: { $0.key == "CAPTIVE_PORTAL" })?.value else {
            return nil
        }
        let uri = String(value)
        return CaptivePortalHint.isValidURI(uri) ? uri : nil
    }
}
