// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import Prometheus

/// Issue 43's bytes per network as counters: `pathmond_network_sent_bytes_total{network="KEY"}` and `_received_`,
/// counted since pathmond started (a counter starts again at a restart, as Prometheus expects; the day and cycle
/// figures are `pathctl usage`'s).
extension MetricsRenderer {
    struct NetworkSeries {
        var sent: Counter
        var received: Counter
        var rendered: ByteCounts
    }

    static var networkSent: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "pathmond", metricName: "network_sent", unitName: "bytes_total",
            helpText: "Bytes sent over a network's interfaces while it was attached, since pathmond started.")
    }

    static var networkReceived: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "pathmond", metricName: "network_received", unitName: "bytes_total",
            helpText: "Bytes received over a network's interfaces while it was attached, since pathmond started.")
    }

    /// Brings each network's counters up to `totals`, making the series of a network seen the first time.
    func updateNetworks(_ totals: [NetworkKey: ByteCounts], in series: inout [NetworkKey: NetworkSeries]) {
        for (key, counts) in totals {
            var entry =
                series[key]
                ?? NetworkSeries(
                    sent: registry.makeCounter(descriptor: Self.networkSent, labels: [("network", label(key))]),
                    received: registry.makeCounter(descriptor: Self.networkReceived, labels: [("network", label(key))]),
                    rendered: .zero)
            if counts.sent > entry.rendered.sent {
                entry.sent.increment(by: Int64(clamping: counts.sent - entry.rendered.sent))
            }
            if counts.received > entry.rendered.received {
                entry.received.increment(by: Int64(clamping: counts.received - entry.rendered.received))
            }
            entry.rendered = counts
            series[key] = entry
        }
    }

    private func label(_ key: NetworkKey) -> String {
        // Keys are printable ASCII by construction; escaped all the same, as interface names are.
        HumanText.escaped(key.description)
    }
}
