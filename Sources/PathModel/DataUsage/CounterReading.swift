// SPDX-License-Identifier: Apache-2.0
/// One reading of an interface's byte counters (IFLA_STATS64's tx_bytes and rx_bytes), as the kernel keeps them
/// since the interface was created.
public struct CounterReading: Sendable, Hashable {
    public var index: Int32
    public var name: String
    public var counters: ByteCounts

    public init(index: Int32, name: String, counters: ByteCounts) {
        self.index = index
        self.name = name
        self.counters = counters
    }
}
