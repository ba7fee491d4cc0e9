// SPDX-License-Identifier: Apache-2.0
import PathModel
import Prometheus

/// Issue 26's attributes as gauges: 0/1 for the flags; the link quality grade as 0 (unknown) to 3 (good), so that
/// `< 2` selects links below a 1080p stream; the captive portal as 0 (unknown), 1 (open), 2 (captive).
extension MetricsRenderer {
    struct AttributeGauges {
        let ultraConstrained: Gauge
        let roaming: Gauge
        let captivePortal: Gauge
        let linkQuality: Gauge

        init(registry: PrometheusCollectorRegistry) {
            func gauge(_ name: String, _ help: String) -> Gauge {
                registry.makeGauge(
                    descriptor: MetricNameDescriptor(
                        namespace: "pathmond", metricName: name, unitName: "", helpText: help))
            }
            ultraConstrained = gauge(
                "path_ultra_constrained", "Whether the system path is ultra-constrained (a satellite link).")
            roaming = gauge("path_roaming", "Whether the system path leaves by a roaming modem.")
            captivePortal = gauge(
                "path_captive_portal", "The system path's captive portal: 0 unknown, 1 open, 2 captive.")
            linkQuality = gauge(
                "path_link_quality",
                "The preferred interface's link quality: 0 unknown, 1 minimal, 2 moderate, 3 good.")
        }

        func set(from path: Path) {
            ultraConstrained.set(Double(path.isUltraConstrained ? 1 : 0))
            roaming.set(Double(path.isRoaming ? 1 : 0))
            captivePortal.set(Double(MetricsRenderer.level(path.captivePortal)))
            linkQuality.set(Double(MetricsRenderer.level(path.linkQualityGrade)))
        }
    }

    /// The per-interface gauges after the five flags, in the order `setAttributes` fills them.
    static var attributeInterfaceGauges: [MetricNameDescriptor] {
        func metric(_ name: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: "pathmond", metricName: name, unitName: "", helpText: help)
        }
        return [
            metric("interface_ultra_constrained", "Whether the interface is ultra-constrained (1) or not (0)."),
            metric("interface_roaming", "Whether the interface's modem is registered roaming (1) or not (0)."),
            metric(
                "interface_link_quality",
                "The interface's link quality: 0 unknown, 1 minimal, 2 moderate, 3 good."),
        ]
    }

    static func setAttributes(of status: InterfaceStatus, gauges: ArraySlice<Gauge>) {
        let values = [
            status.isUltraConstrained ? 1 : 0, status.isRoaming ? 1 : 0, level(status.linkQuality?.grade ?? .unknown),
        ]
        for (gauge, value) in zip(gauges, values) { gauge.set(Double(value)) }
    }

    static func level(_ grade: LinkQualityGrade) -> Int {
        LinkQualityGrade.allCases.firstIndex(of: grade) ?? 0
    }

    static func level(_ portal: CaptivePortal) -> Int {
        switch portal {
        case .unknown: return 0
        case .open: return 1
        case .captive: return 2
        }
    }
}
