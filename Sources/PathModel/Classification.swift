// SPDX-License-Identifier: Apache-2.0
/// The built-in rules that tell an interface's kind from kernel and sysfs facts, as NetworkManager and
/// systemd-networkd read them.
public enum Classification {
    /// Drivers of WWAN modems whose network interfaces look like Ethernet or raw IP.
    public static let cellularDrivers: Set<String> = [
        "qmi_wwan", "cdc_mbim", "huawei_cdc_ncm", "sierra_net", "option", "qcserial", "cdc_wdm", "mhi_net",
        "mhi_wwan_mbim", "ipa", "rmnet", "t7xx", "iosm", "gobi", "GobiNet", "qmi_wwan_q",
    ]

    /// Drivers of USB tethering to a phone: Ethernet-like, but the phone's uplink is usually cellular.
    public static let tetheringDrivers: Set<String> = ["ipheth", "rndis_host"]

    /// Link kinds that are tunnels or other virtual point-to-point links, whatever their hardware type.
    public static let tunnelLinkKinds: Set<String> = [
        "tun", "wireguard", "ppp", "gre", "gretap", "ip6gre", "ipip", "sit", "ip6tnl", "vti", "vti6", "xfrm",
        "vxlan", "geneve", "ipvlan", "l2tp",
    ]

    /// The link kinds among those that are VPNs or IP tunnels: traffic through them rides on another interface.
    /// (vxlan, geneve, ipvlan are overlays or virtual ports, not tunnels a path goes through to the internet.)
    public static let vpnLinkKinds: Set<String> = [
        "tun", "wireguard", "ppp", "gre", "ip6gre", "ipip", "sit", "ip6tnl", "vti", "vti6", "xfrm", "l2tp",
        "gretap", "ip6gretap",
    ]

    /// Whether a link is a VPN or tunnel: its traffic rides on another interface, whose cost it inherits.
    /// Held by the link, worked out when it was made (`Link.isTunnel`).
    public static func isTunnel(_ link: Link) -> Bool { link.isTunnel }

    /// Whether a link of this kind and hardware type is a VPN or tunnel.
    public static func isTunnel(kind: String?, hardwareType: UInt16) -> Bool {
        hardwareType == HardwareType.ppp || kind.map(vpnLinkKinds.contains) == true
    }

    /// Link kinds of WWAN drivers' own netdevices.
    public static let cellularLinkKinds: Set<String> = ["wwan", "rmnet", "qmimux"]

    /// Classifies a link by the built-in rules.
    public static func classify(_ link: Link) -> InterfaceClass {
        let device = link.device
        if link.flags.contains(.loopback) || link.hardwareType == HardwareType.loopback {
            return InterfaceClass(kind: .loopback, isExpensive: false)
        }
        if device.hasWirelessExtensions || device.deviceType == "wlan" {
            return InterfaceClass(kind: .wifi, isExpensive: false)
        }
        if device.deviceType == "wwan" || device.driver.map(cellularDrivers.contains) == true
            || link.linkKind.map(cellularLinkKinds.contains) == true || link.hardwareType == HardwareType.rawIP
        {
            return InterfaceClass(kind: .cellular, isExpensive: true)
        }
        if link.linkKind.map(tunnelLinkKinds.contains) == true {
            return InterfaceClass(kind: .other, isExpensive: false)
        }
        if device.driver.map(tetheringDrivers.contains) == true {
            return InterfaceClass(kind: .wired, isExpensive: true)
        }
        if link.hardwareType == HardwareType.ethernet {
            return InterfaceClass(kind: .wired, isExpensive: false)
        }
        return InterfaceClass(kind: .other, isExpensive: false)
    }
}
