// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

@testable import pathmond

/// Issue 26's attributes in the metrics: valid for promtool, with the values the path and interfaces say.
@Suite struct MetricsAttributesTests {
    @Test func theAttributesAreGauges() throws {
        let renderer = MetricsRenderer(version: "9.9.9", startTimeSeconds: 1_795_000_000)
        var satellite = MetricsTextfileTests.status(2, "sat0", kind: .wired)
        satellite.isUltraConstrained = true
        satellite.isConstrained = true
        satellite.linkQuality = LinkQuality(source: .ethernet, speedMbps: 100, isFullDuplex: false)
        var modem = MetricsTextfileTests.status(3, "wwan0", kind: .cellular, expensive: true)
        modem.isRoaming = true
        var path = Path(
            status: .satisfied,
            availableInterfaces: [PathInterface(index: 2, name: "sat0", kind: .wired, isExpensive: false)],
            isConstrained: true, isUltraConstrained: true, isRoaming: true)
        path.captivePortal = .captive
        path.linkQuality = satellite.linkQuality
        let bytes = renderer.render(
            path: path, interfaces: [satellite, modem], counters: DaemonCounters.Snapshot(), lastChangeSeconds: nil)
        #expect(try MetricsTextfileTests.promtool(bytes) == nil)
        let samples = MetricsTextfileTests.samples(bytes)
        #expect(samples["pathmond_path_ultra_constrained"] == 1)
        #expect(samples["pathmond_path_roaming"] == 1)
        // Enums: one series per state, every state present, 1 for the current one.
        #expect(samples["pathmond_path_captive_portal_state{state=\"captive\"}"] == 1)
        #expect(samples["pathmond_path_captive_portal_state{state=\"open\"}"] == 0)
        #expect(samples["pathmond_path_captive_portal_state{state=\"unknown\"}"] == 0)
        #expect(samples["pathmond_path_link_quality_grade{grade=\"moderate\"}"] == 1)  // 100 Mb/s half duplex
        for grade in ["unknown", "minimal", "good"] {
            #expect(samples["pathmond_path_link_quality_grade{grade=\"\(grade)\"}"] == 0)
        }
        #expect(samples["pathmond_path_captive_portal"] == nil)
        #expect(samples["pathmond_path_link_quality"] == nil)
        #expect(samples["pathmond_interface_ultra_constrained{interface=\"sat0\"}"] == 1)
        #expect(samples["pathmond_interface_roaming{interface=\"wwan0\"}"] == 1)
        #expect(samples["pathmond_interface_roaming{interface=\"sat0\"}"] == 0)
        let grade = "pathmond_interface_link_quality_grade"
        #expect(samples["\(grade){interface=\"sat0\",grade=\"moderate\"}"] == 1)
        #expect(samples["\(grade){interface=\"sat0\",grade=\"good\"}"] == 0)
        #expect(samples["\(grade){interface=\"wwan0\",grade=\"unknown\"}"] == 1)
        #expect(samples.keys.filter { $0.hasPrefix(grade) }.count == 2 * LinkQualityGrade.allCases.count)
    }
}
