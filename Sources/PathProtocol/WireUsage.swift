// SPDX-License-Identifier: Apache-2.0
import PathModel

/// io.pathmond.UsagePeriod on the wire.
public struct WireUsagePeriod: Codable, Sendable, Hashable {
    public var first: String
    public var last: String
    public var sent: UInt64
    public var received: UInt64

    public init(first: String, last: String, sent: UInt64, received: UInt64) {
        self.first = first
        self.last = last
        self.sent = sent
        self.received = received
    }

    /// A period of the model: its days `lowerBound..<upperBound` become first and last.
    public init(_ period: NetworkUsage.Period) {
        self.init(
            first: period.days.lowerBound.description, last: period.days.upperBound.advanced(by: -1).description,
            sent: period.counts.sent, received: period.counts.received)
    }
}

/// io.pathmond.NetworkUsage on the wire.
public struct WireNetworkUsage: Codable, Sendable, Hashable {
    public var key: String
    public var displayName: String
    public var interfaces: [String]
    public var today: WireUsagePeriod
    public var cycle: WireUsagePeriod
    public var pastCycles: [WireUsagePeriod]
    /// Its data limit and the usage of the limit's cycle; absent without a limit, and from older servers.
    public var dataLimit: WireDataLimit?

    public init(
        key: String, displayName: String, interfaces: [String], today: WireUsagePeriod, cycle: WireUsagePeriod,
        pastCycles: [WireUsagePeriod], dataLimit: WireDataLimit? = nil
    ) {
        self.dataLimit = dataLimit
        self.key = key
        self.displayName = displayName
        self.interfaces = interfaces
        self.today = today
        self.cycle = cycle
        self.pastCycles = pastCycles
    }
}

extension Methods {
    /// io.pathmond.GetUsage reply.
    public struct UsageReply: Codable, Sendable, Hashable {
        public var networks: [WireNetworkUsage]
        public init(networks: [WireNetworkUsage]) { self.networks = networks }
    }
}
