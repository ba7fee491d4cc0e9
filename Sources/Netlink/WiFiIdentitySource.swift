// SPDX-License-Identifier: Apache-2.0
/// The association of one wireless interface: the SSID it is connected to, or none.
public struct WiFiAssociation: Sendable, Hashable {
    /// The interface (netdev) index.
    public var interfaceIndex: Int32
    /// The SSID, 0 to 32 arbitrary bytes; nil when the interface is not associated (or has gone away).
    public var ssid: [UInt8]?

    public init(interfaceIndex: Int32, ssid: [UInt8]?) {
        self.interfaceIndex = interfaceIndex
        self.ssid = ssid
    }
}

/// Whether a source can see Wi-Fi at all on this machine.
public enum WiFiSupport: Sendable, Hashable {
    /// Associations are followed.
    case available
    /// No Wi-Fi here (say, no cfg80211 in the kernel, so no "nl80211" generic netlink family), or it could not be
    /// reached; the reason is for the log. The source yields nothing and that is not an error.
    case unavailable(reason: String)
}

/// Where pathmond learns which Wi-Fi network each wireless interface is on. nl80211 in production; a fake, or a
/// file-based source, in tests and on machines without a radio.
public protocol WiFiIdentitySource: Sendable {
    /// Whether the source sees Wi-Fi at all on this machine.
    var support: WiFiSupport { get }

    /// Starts following associations: `handler` gets first one element per wireless interface as the source found
    /// it, then one per change (a new SSID, or nil on disassociation or when the interface goes away), on the
    /// source's loop. Nothing happens when there is no Wi-Fi support. Call once.
    func start(handler: @escaping (WiFiAssociation) -> Void)

    /// Stops following; safe from any thread, more than once.
    func stop()
}
