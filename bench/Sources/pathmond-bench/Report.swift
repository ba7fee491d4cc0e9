// SPDX-License-Identifier: Apache-2.0
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The latencies one observer recorded for a set of changes, in nanoseconds after t0.
struct Samples {
    var latencies: [UInt64] = []
    var misses = 0

    mutating func record(_ latency: UInt64?) {
        if let latency { latencies.append(latency) } else { misses += 1 }
    }

    mutating func merge(_ other: Samples) {
        latencies += other.latencies
        misses += other.misses
    }
}

/// The observers' samples for one kind (or all kinds), plus the per-change gap between two of them.
struct KindSamples {
    var raw = Samples()
    var subscriber = Samples()
    var wire = Samples()
    /// Subscriber minus raw, for changes both saw: what pathmond adds on top of the kernel's own delivery.
    var added: [UInt64] = []

    mutating func record(_ observation: Observation) {
        raw.record(observation.raw)
        subscriber.record(observation.subscriber)
        wire.record(observation.wire)
        if let raw = observation.raw, let subscriber = observation.subscriber, subscriber >= raw {
            added.append(subscriber - raw)
        }
    }

    mutating func merge(_ other: KindSamples) {
        raw.merge(other.raw)
        subscriber.merge(other.subscriber)
        wire.merge(other.wire)
        added += other.added
    }
}

/// One observer's figures; JSON field names are stable.
struct ObserverSummary: Codable {
    var observer: String
    var count: Int
    var misses: Int
    var p50Micros: Double?
    var p99Micros: Double?
    var maxMicros: Double?

    init(_ observer: String, _ samples: Samples) {
        let sorted = samples.latencies.sorted()
        self.observer = observer
        count = sorted.count
        misses = samples.misses
        p50Micros = percentile(sorted, 0.50)
        p99Micros = percentile(sorted, 0.99)
        maxMicros = sorted.last.map(micros)
    }
}

/// One kind's figures, side by side, with the ratios the issue asks for.
struct KindSummary: Codable {
    var kind: String
    var raw: ObserverSummary
    /// Through the client library (NetworkPathMonitor on a DispatchQueue).
    var subscriber: ObserverSummary
    /// Reading pathmond's socket itself: pathmond's own latency.
    var wire: ObserverSummary
    /// Subscriber p50 over raw p50, and likewise for p99.
    var ratioP50: Double?
    var ratioP99: Double?
    /// Wire p50 over raw p50, and likewise for p99.
    var wireRatioP50: Double?
    var wireRatioP99: Double?
    /// The median of the per-change gap subscriber − raw.
    var addedP50Micros: Double?

    init(_ kind: String, _ samples: KindSamples) {
        self.kind = kind
        raw = ObserverSummary("raw", samples.raw)
        subscriber = ObserverSummary("subscriber", samples.subscriber)
        wire = ObserverSummary("wire", samples.wire)
        ratioP50 = ratio(subscriber.p50Micros, raw.p50Micros)
        ratioP99 = ratio(subscriber.p99Micros, raw.p99Micros)
        wireRatioP50 = ratio(wire.p50Micros, raw.p50Micros)
        wireRatioP99 = ratio(wire.p99Micros, raw.p99Micros)
        addedP50Micros = percentile(samples.added.sorted(), 0.50)
    }
}

/// The whole run.
struct Report: Codable {
    var changesPerKind: Int
    var warmup: Int
    /// Quiet time before each change (0: back to back, threads still warm).
    var pauseMicros: UInt32
    var kinds: [KindSummary]
    var overall: KindSummary
    /// Path updates the subscriber got that no change asked for; 0 when every change made exactly one.
    var extraUpdates: Int
    /// ENOBUFS seen by the raw listener.
    var rawOverflows: Int

    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    func table() -> String {
        var lines = [
            "pathmond-bench: \(changesPerKind) changes per kind after \(warmup) warm-up, \(pauseMicros) µs pause "
                + "before each; latency from the change's send to each observer (raw: a netlink listener; wire: a "
                + "WatchPath subscriber reading the socket; subscriber: NetworkPathMonitor on a DispatchQueue)",
            row("kind", "observer", "n", "p50 µs", "p99 µs", "max µs", "misses"),
        ]
        for summary in kinds + [overall] {
            for observer in [summary.raw, summary.wire, summary.subscriber] {
                lines.append(
                    row(
                        summary.kind, observer.observer, "\(observer.count)", format(observer.p50Micros),
                        format(observer.p99Micros), format(observer.maxMicros), "\(observer.misses)"))
            }
            lines.append(
                row(
                    summary.kind, "wire/raw", "", format(summary.wireRatioP50, suffix: "x"),
                    format(summary.wireRatioP99, suffix: "x"), "", ""))
            let ratios = row(
                summary.kind, "subscr/raw", "", format(summary.ratioP50, suffix: "x"),
                format(summary.ratioP99, suffix: "x"), "", "")
            lines.append(ratios + "  (subscriber − raw per change, p50: \(format(summary.addedP50Micros)) µs)")
        }
        lines.append("extra subscriber updates: \(extraUpdates), raw listener overflows: \(rawOverflows)")
        return lines.joined(separator: "\n")
    }
}

private func row(_ columns: String...) -> String {
    let widths = [8, 11, 5, 9, 9, 9, 7]
    return zip(columns, widths).enumerated().map { index, pair in
        let padding = String(repeating: " ", count: max(0, pair.1 - pair.0.count))
        return index < 2 ? pair.0 + padding : padding + pair.0
    }.joined(separator: " ")
}

private func format(_ value: Double?, suffix: String = "") -> String {
    guard let value else { return "-" }
    // Ratios keep two decimals (they are rounded so already); microseconds one.
    return String(suffix.isEmpty ? (value * 10).rounded() / 10 : value) + suffix
}

/// Nearest-rank percentile, in microseconds.
private func percentile(_ sorted: [UInt64], _ fraction: Double) -> Double? {
    guard !sorted.isEmpty else { return nil }
    let rank = Int((fraction * Double(sorted.count)).rounded(.up))
    return micros(sorted[min(max(rank, 1), sorted.count) - 1])
}

private func micros(_ nanoseconds: UInt64) -> Double { Double(nanoseconds) / 1000 }

private func ratio(_ numerator: Double?, _ denominator: Double?) -> Double? {
    guard let numerator, let denominator, denominator > 0 else { return nil }
    return ((numerator / denominator) * 100).rounded() / 100
}
