// SPDX-License-Identifier: Apache-2.0
import PathModel
import Prometheus

/// Issue 26's attributes as gauges: 0/1 for the flags; the captive portal and the link quality grade, which are
/// enums, as state sets (`StateSetGauge`): one series per state, 1 for the current one.
extension MetricsRenderer {
    struct AttributeGauges {
        let ultraConstrained: Gauge
        let roaming: Gauge
        let captivePortal: StateSetGauge<CaptivePortal>
        let linkQuality: StateSetGauge<LinkQualityGrade>

        init(registry: PrometheusCollectorRegistry) {
            func metric(_ name: String, _ help: String) -> MetricNameDescriptor {
                MetricNameDescriptor(namespace: "pathmond", metricName: name, unitName: "", helpText: help)
            }
            ultraConstrained = registry.makeGauge(
                descriptor: metric(
                    "path_ultra_constrained", "Whether the system path is ultra-constrained (a satellite link)."))
            roaming = registry.makeGauge(
                descriptor: metric("path_roaming", "Whether the system path leaves by a roaming modem."))
            captivePortal = StateSetGauge(
                registry: registry,
                descriptor: metric(
                    "path_captive_portal_state",
                    "The system path's captive portal: 1 for the current state (unknown, captive, open, limited), "
                        + "0 for others."), label: "state")
            linkQuality = StateSetGauge(
                registry: registry, descriptor: MetricsRenderer.pathLinkQuality, label: "grade")
        }

        func set(from path: Path) {
            ultraConstrained.set(Double(path.isUltraConstrained ? 1 : 0))
            roaming.set(Double(path.isRoaming ? 1 : 0))
            captivePortal.set(path.captivePortal)
            linkQuality.set(path.linkQualityGrade)
        }
    }

    private static var pathLinkQuality: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "pathmond", metricName: "path_link_quality_grade", unitName: "",
            helpText: "The preferred interface's link quality: 1 for the current grade (unknown, minimal, moderate, "
                + "good), 0 for others.")
    }

    static var interfaceLinkQuality: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "pathmond", metricName: "interface_link_quality_grade", unitName: "",
            helpText: "The interface's link quality: 1 for the current grade (unknown, minimal, moderate, good), 0 for "
                + "others.")
    }

    /// The per-interface 0/1 gauges after the five flags, in the order `setAttributes` fills them.
    static var attributeInterfaceGauges: [MetricNameDescriptor] {
        func metric(_ name: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: "pathmond", metricName: name, unitName: "", helpText: help)
        }
        return [
            metric("interface_ultra_constrained", "Whether the interface is ultra-constrained (1) or not (0)."),
            metric("interface_roaming", "Whether the interface's modem is registered roaming (1) or not (0)."),
        ]
    }

    static func setAttributes(of status: InterfaceStatus, gauges: ArraySlice<Gauge>) {
        let values = [status.isUltraConstrained, status.isRoaming]
        for (gauge, value) in zip(gauges, values) { gauge.set(Double(value ? 1 : 0)) }
    }
}
