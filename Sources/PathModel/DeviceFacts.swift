// SPDX-License-Identifier: Apache-2.0
/// What sysfs (/sys/class/net/NAME) says about the device behind an interface: the facts classification needs
/// beyond netlink. Gathered by the daemon, so the rules here stay testable on fixture trees.
public struct DeviceFacts: Sendable, Hashable {
    /// DEVTYPE from the uevent file: "wlan", "wwan", "bridge", "vlan", "gadget", ...
    public var deviceType: String?
    /// The bound driver's name (basename of device/driver): "iwlwifi", "qmi_wwan", "ipheth", "e1000e", ...
    public var driver: String?
    /// A `wireless` or `phy80211` entry exists: the interface sits on an 802.11 radio.
    public var hasWirelessExtensions: Bool

    public init(deviceType: String? = nil, driver: String? = nil, hasWirelessExtensions: Bool = false) {
        self.deviceType = deviceType
        self.driver = driver
        self.hasWirelessExtensions = hasWirelessExtensions
    }

    /// Nothing known: a virtual device, or one not looked at yet.
    public static let unknown = DeviceFacts()
}
