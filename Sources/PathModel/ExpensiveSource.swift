// SPDX-License-Identifier: Apache-2.0
/// What decided an interface's `isExpensive`, most authoritative first: the user's setting wins over every
/// detection.
public enum ExpensiveSource: String, Sendable, HashedByCase, CaseIterable {
    /// The user's setting for the network (`pathctl set-expensive`), either way.
    case user
    /// The interface's class: cellular, phone tethering, or the configuration file's `expensive=`.
    case interfaceClass
    /// A DHCP lease or addressing that marks a phone hotspot (ANDROID_METERED, Apple's 172.20.10.0/28).
    case dhcpLease
    /// NetworkManager's `Metered` for the device (yes or guessed yes).
    case networkManager
    /// A cellular interface whose modem is registered roaming (ModemManager), unless the configuration's
    /// `roaming-expensive = no` says roaming costs nothing more.
    case roaming
    /// The network's data limit is used up this cycle (`pathctl set-limit`): it wins over the user's
    /// `set-expensive no`, since a plan that is used up costs whatever was said of it before.
    case dataLimit
    /// A tunnel whose carrier (the interface its own packets leave by) is expensive.
    case tunnelCarrier
}
