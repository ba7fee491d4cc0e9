// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol

/// The human-readable form of each network's usage: sent / received today and this cycle, the totals of the
/// cycles before (newest first).
enum UsageTable {
    static func render(_ networks: [WireNetworkUsage], width: Int? = nil, legend: Bool = true) -> String {
        guard !networks.isEmpty else { return legend ? "No usage counted yet." : "" }
        let rows = networks.map { network in
            [
                network.displayName, pair(network.today), pair(network.cycle),
                network.pastCycles.map { ByteSize.text($0.sent &+ $0.received) }.joined(separator: ", "),
                network.interfaces.isEmpty ? "-" : network.interfaces.joined(separator: ","), network.key,
            ]
        }
        let since = networks.first.map { " SINCE \($0.cycle.first)" } ?? ""
        let table = TextTable(
            header: ["NETWORK", "TODAY SENT/RECV", "CYCLE\(since) SENT/RECV", "PAST CYCLES", "ATTACHED", "KEY"],
            rows: rows,
            shrinkable: [0, 4])
        return table.render(width: width, legend: legend)
    }

    /// "1.2 MB / 34 MB": sent, then received.
    private static func pair(_ period: WireUsagePeriod) -> String {
        "\(ByteSize.text(period.sent)) / \(ByteSize.text(period.received))"
    }
}
