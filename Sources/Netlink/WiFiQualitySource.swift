// SPDX-License-Identifier: Apache-2.0
import PathModel

/// One wireless interface's link figures: those of its current association, or none (disassociated, gone).
public struct WiFiLinkQuality: Sendable, Hashable {
    public var interfaceIndex: Int32
    public var quality: LinkQuality?

    public init(interfaceIndex: Int32, quality: LinkQuality?) {
        self.interfaceIndex = interfaceIndex
        self.quality = quality
    }
}

/// Where pathmond learns the link figures of each wireless interface: nl80211 in production, a fake in tests.
public protocol WiFiQualitySource: Sendable {
    /// Whether the source sees Wi-Fi at all on this machine.
    var support: WiFiSupport { get }

    /// Starts following: `handler` gets one element per associated interface as found, then one per change the
    /// kernel announces, on the source's loop. Call once.
    func start(handler: @escaping (WiFiLinkQuality) -> Void)

    /// Stops following; safe from any thread, more than once.
    func stop()
}
