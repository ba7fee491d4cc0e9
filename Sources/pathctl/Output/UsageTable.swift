// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol

/// The human-readable form of each network's usage: sent / received today and this cycle, the totals of the
/// cycles before (newest first); and, when a network has a data limit, a LIMIT column: its cycle's usage against it.
enum UsageTable {
    static func render(_ networks: [WireNetworkUsage], width: Int? = nil, legend: Bool = true) -> String {
        guard !networks.isEmpty else { return legend ? "No usage counted yet." : "" }
        // Only with a limit somewhere: the table of a machine without one reads as it always did.
        let limits = networks.contains { $0.dataLimit != nil }
        let rows = networks.map { network in
            [
                network.displayName, pair(network.today), pair(network.cycle),
                network.pastCycles.map { ByteSize.text($0.sent &+ $0.received) }.joined(separator: ", "),
            ] + (limits ? [network.dataLimit.map(limit) ?? "-"] : []) + [
                network.interfaces.isEmpty ? "-" : network.interfaces.joined(separator: ","), network.key,
            ]
        }
        let since = networks.first.map { " SINCE \($0.cycle.first)" } ?? ""
        let table = TextTable(
            header: ["NETWORK", "TODAY SENT/RECV", "CYCLE\(since) SENT/RECV", "PAST CYCLES"]
                + (limits ? ["LIMIT"] : []) + ["ATTACHED", "KEY"],
            rows: rows,
            shrinkable: [0, limits ? 5 : 4])
        return table.render(width: width, legend: legend)
    }

    /// "1.2 MB / 34 MB": sent, then received.
    private static func pair(_ period: WireUsagePeriod) -> String {
        "\(ByteSize.text(period.sent)) / \(ByteSize.text(period.received))"
    }

    /// "4.1 GB of 5.0 GB, resets 2026-12-15 (warning)": the limit's own cycle, which may differ from the CYCLE column's
    /// calendar month.
    private static func limit(_ limit: WireDataLimit) -> String {
        let level = limit.level == "normal" ? "" : " (\(limit.level))"
        return
            "\(ByteSize.text(limit.usedBytes)) of \(ByteSize.text(limit.limitBytes)), resets \(limit.cycleEnd)\(level)"
    }
}
