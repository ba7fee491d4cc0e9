// SPDX-License-Identifier: Apache-2.0
/// Signs of a phone hotspot beyond ANDROID_METERED, each pure and each with its source. A sign only ever makes a
/// network *expensive by detection*; the user's explicit setting still wins.
public enum HotspotSigns {
    /// The network an iPhone or iPad Personal Hotspot hands out: 172.20.10.0/28, the phone at 172.20.10.1, clients
    /// at .2 to .14. iOS sends no metered option, so the numbering is the one sign a DHCP lease or the kernel's
    /// addresses carry; other systems use it the same way (some Android builds' `DhcpResults.hasMeteredHint()`
    /// test the 172.20.10. prefix). All three must hold (address in the /28, prefix exactly 28, router .1),
    /// which keeps a LAN that merely lives somewhere in 172.16/12 out.
    public static func isApplePersonalHotspot(address: String, prefixLength: Int, router: String?) -> Bool {
        guard prefixLength == 28, let octets = IPv4Text.octets(address), router == "172.20.10.1" else { return false }
        return octets[0] == 172 && octets[1] == 20 && octets[2] == 10 && (2...14).contains(octets[3])
    }

    /// The prefix length of a dotted-quad netmask (nil unless its ones are contiguous): leases carry masks.
    public static func prefixLength(netmask: String) -> Int? {
        guard let octets = IPv4Text.octets(netmask) else { return nil }
        let mask = octets.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let ones = mask.leadingZeroBitCount == 0 ? (~mask).leadingZeroBitCount : 0
        guard mask == (ones == 0 ? 0 : UInt32.max << (32 - ones)) else { return nil }
        return ones
    }

    /// Whether a BSSID is one Android's Wi-Fi hotspot used to take: the locally administered prefix 02:1a:11, as
    /// ChromeOS's shill (`Tethering::IsAndroidBSSID`) checks. For a Wi-Fi identity source that reads the BSSID;
    /// newer Android randomises the BSSID, so absence proves nothing.
    public static func isAndroidHotspotBSSID(_ bssid: [UInt8]) -> Bool {
        bssid.count == 6 && bssid[0] == 0x02 && bssid[1] == 0x1a && bssid[2] == 0x11
    }

    /// Whether a lease shows a sign of its own beyond option 43: the Apple Personal Hotspot numbering.
    static func leaseLooksLikeHotspot(_ lease: DHCPLease) -> Bool {
        guard let address = lease.address, let netmask = lease.netmask, let prefix = prefixLength(netmask: netmask)
        else { return false }
        return isApplePersonalHotspot(address: address, prefixLength: prefix, router: lease.router)
    }
}
