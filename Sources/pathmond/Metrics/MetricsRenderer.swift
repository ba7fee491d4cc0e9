// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import Prometheus

/// Renders pathmond's state in Prometheus's text exposition format through swift-prometheus: a registry of its
/// own (no global MetricsSystem), whose gauges are set from the path, the interfaces and the counters just before
/// each rendering. Names follow Prometheus conventions: `pathmond_` prefix, `_total` counters, seconds, 0/1 gauges
/// for booleans, one series per state for enums (`StateSetGauge`: the path's status, its captive portal, link
/// quality grades), `_info` series with value 1 for text (interface type, version).
///
/// Not thread-safe: one writer renders at a time (the metrics textfile's owner).
final class MetricsRenderer {
    let registry = PrometheusCollectorRegistry()
    private let pathStatus: StateSetGauge<PathStatus>
    private let expensive: Gauge
    private let constrained: Gauge
    /// Issue 26's attributes of the system path (`MetricsRenderer+Attributes.swift`).
    private let attributes: AttributeGauges
    private let lastChange: Gauge
    private let clientsOpen: Gauge
    /// Counters mirror `DaemonCounters` (which count without knowing about Prometheus): incremented by the
    /// difference since the last rendering.
    private var counters: [(Counter, KeyPath<DaemonCounters.Snapshot, Int64>)] = []
    private var rendered = DaemonCounters.Snapshot()
    /// Per-interface series, by interface name, with the labels they were made with.
    private var interfaceSeries: [String: InterfaceSeries] = [:]
    /// Per-network byte counters (`MetricsRenderer+Usage.swift`), by key.
    private var networkSeries: [NetworkKey: NetworkSeries] = [:]

    private struct InterfaceSeries {
        var type: String
        var info: Gauge
        var gauges: [Gauge]
        var linkQuality: StateSetGauge<LinkQualityGrade>
    }

    /// pathmond_NAME_UNIT with its help text; an empty unit for 0/1 gauges and counts.
    private static func metric(_ name: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "pathmond", metricName: name, unitName: unit, helpText: help)
    }

    // Computed: swift-prometheus's descriptors are not Sendable, so they cannot be stored statics.
    private static var interfaceGauges: [MetricNameDescriptor] {
        [
            metric("interface_up", "", "Whether the interface is up with carrier (1) or not (0)."),
            metric(
                "interface_usable", "", "Whether the interface can carry traffic to the internet now (1) or not (0)."),
            metric("interface_primary", "", "Whether the interface is the system path's preferred one (1) or not (0)."),
            metric("interface_expensive", "", "Whether traffic over the interface is expensive (1) or not (0)."),
            metric("interface_constrained", "", "Whether the interface's network is in Low Data Mode (1) or not (0)."),
        ] + attributeInterfaceGauges
    }

    private static var interfaceInfo: MetricNameDescriptor {
        metric(
            "interface", "info",
            "An interface pathmond follows, with its type (wired, wifi, cellular, other); always 1.")
    }

    init(version: String, startTimeSeconds: Double) {
        pathStatus = StateSetGauge(
            registry: registry,
            descriptor: Self.metric(
                "path_status", "",
                "The system path's status: 1 for the current one (satisfied, unsatisfied), 0 for the other."),
            label: "status")
        expensive = registry.makeGauge(
            descriptor: Self.metric("path_expensive", "", "Whether the system path's preferred interface is expensive.")
        )
        constrained = registry.makeGauge(
            descriptor: Self.metric("path_constrained", "", "Whether the system path is in Low Data Mode."))
        attributes = AttributeGauges(registry: registry)
        lastChange = registry.makeGauge(
            descriptor: Self.metric(
                "path_last_change_timestamp", "seconds",
                "When the system path last changed, in seconds since the Unix epoch (0: never recorded)."))
        clientsOpen = registry.makeGauge(descriptor: Self.metric("clients", "", "Client connections open now."))
        let counterSpecs: [(String, String, KeyPath<DaemonCounters.Snapshot, Int64>)] = [
            ("path_changes", "Changes of the system path.", \.pathChanges),
            ("better_path_events", "Flow statuses that turned to a better path being available.", \.betterPathEvents),
            ("netlink_resyncs", "Re-reads of the kernel's tables after lost netlink notifications.", \.netlinkResyncs),
            ("clients_connected", "Client connections accepted.", \.clientsConnected),
            ("protocol_errors", "Clients closed for breaking the Varlink protocol.", \.protocolErrors),
            ("policy_writes", "Policy files written.", \.policyWrites),
        ]
        counters = counterSpecs.map {
            (registry.makeCounter(descriptor: Self.metric($0.0, "total", $0.1)), $0.2)
        }
        let start = registry.makeGauge(
            descriptor: Self.metric("start_time", "seconds", "When pathmond started, in seconds since the Unix epoch."))
        start.set(startTimeSeconds)
        let build = registry.makeGauge(
            descriptor: Self.metric("build", "info", "The running pathmond's version; always 1."),
            labels: [("version", version)])
        build.set(Double(1))
    }

    /// The exposition text for this state.
    func render(
        path: Path, interfaces: [InterfaceStatus], counters snapshot: DaemonCounters.Snapshot,
        lastChangeSeconds: Double?, usage: [NetworkKey: ByteCounts] = [:]
    ) -> [UInt8] {
        pathStatus.set(path.status)
        expensive.set(Double(path.isExpensive ? 1 : 0))
        constrained.set(Double(path.isConstrained ? 1 : 0))
        attributes.set(from: path)
        lastChange.set(lastChangeSeconds ?? 0)
        clientsOpen.set(Double(snapshot.clientsOpen))
        for (counter, field) in counters {
            let delta = snapshot[keyPath: field] - rendered[keyPath: field]
            if delta > 0 { counter.increment(by: delta) }
        }
        rendered = snapshot
        updateInterfaces(path: path, interfaces: interfaces.filter { $0.interfaceClass.kind != .loopback })
        updateNetworks(usage, in: &networkSeries)
        var bytes: [UInt8] = []
        registry.emit(into: &bytes)
        return bytes
    }

    private func updateInterfaces(path: Path, interfaces: [InterfaceStatus]) {
        let present = Set(interfaces.map(\.link.name))
        for (name, series) in interfaceSeries where !present.contains(name) {
            remove(series)
            interfaceSeries[name] = nil
        }
        let usable = Set(path.availableInterfaces.map(\.name))
        let primary = path.availableInterfaces.first?.name
        for status in interfaces {
            let name = status.link.name
            let type = status.interfaceClass.kind.rawValue
            if let existing = interfaceSeries[name], existing.type != type {
                remove(existing)
                interfaceSeries[name] = nil
            }
            let series = interfaceSeries[name] ?? makeSeries(name: name, type: type)
            interfaceSeries[name] = series
            let values = [
                status.link.isRunning, usable.contains(name), name == primary, status.isExpensive,
                status.isConstrained,
            ]
            for (gauge, value) in zip(series.gauges, values) { gauge.set(Double(value ? 1 : 0)) }
            Self.setAttributes(of: status, gauges: series.gauges.dropFirst(values.count))
            series.linkQuality.set(status.linkQuality?.grade ?? .unknown)
        }
    }

    private func makeSeries(name: String, type: String) -> InterfaceSeries {
        // The kernel lets a name hold ESC, BEL, C1, bidirectional and invisible characters: `curl .../metrics` on a
        // terminal would run them. The label carries the name as pathctl and the journal print it.
        let label = HumanText.escaped(name)
        let info = registry.makeGauge(descriptor: Self.interfaceInfo, labels: [("interface", label), ("type", type)])
        info.set(Double(1))
        let gauges = Self.interfaceGauges.map { registry.makeGauge(descriptor: $0, labels: [("interface", label)]) }
        let linkQuality = StateSetGauge<LinkQualityGrade>(
            registry: registry, descriptor: Self.interfaceLinkQuality, label: "grade", labels: [("interface", label)])
        return InterfaceSeries(type: type, info: info, gauges: gauges, linkQuality: linkQuality)
    }

    private func remove(_ series: InterfaceSeries) {
        registry.unregisterGauge(series.info)
        for gauge in series.gauges { registry.unregisterGauge(gauge) }
        series.linkQuality.unregister(from: registry)
    }
}
