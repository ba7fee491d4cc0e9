// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

/// The grades and their thresholds (docs/attributes.md), per source; the path's grade is the preferred interface's;
/// what counts as a change worth publishing.
@Suite struct LinkQualityTests {
    typealias EthernetCase = (speed: UInt32, fullDuplex: Bool?, grade: LinkQualityGrade)
    static let ethernetCases: [EthernetCase] = [
        (10_000, true, .good), (1000, true, .good), (100, true, .good), (100, false, .moderate), (100, nil, .good),
        (10, true, .moderate), (10, false, .minimal), (2, true, .minimal), (0, true, .unknown),
        (4_000_000, true, .unknown),
    ]

    @Test func ethernet() {
        for (speed, fullDuplex, grade) in Self.ethernetCases {
            let quality = LinkQuality(source: .ethernet, speedMbps: speed, isFullDuplex: fullDuplex)
            #expect(quality.grade == grade, "\(speed) \(fullDuplex as Any)")
        }
        #expect(LinkQuality(source: .ethernet).grade == .unknown)
    }

    typealias WiFiCase = (signal: Int32?, expected: UInt32?, bitrate: UInt32?, grade: LinkQualityGrade)
    // signal (dBm), expected throughput and tx bitrate (kbit/s) → grade
    static let wifiCases: [WiFiCase] = [
        (-55, 520_000, 866_700, .good),
        (-72, 520_000, nil, .moderate),  // the signal caps a fast rate
        (-85, 520_000, nil, .minimal),
        (-55, 12_000, nil, .moderate),  // a 1080p stream fits
        (-55, 3_000, nil, .minimal),
        (-55, nil, 60_000, .good),  // half the tx rate: 30 Mbit/s
        (-55, nil, 20_000, .moderate),
        (-55, 0, 20_000, .moderate),  // a zero estimate is no estimate
        (nil, nil, 6_000, .minimal),
        (-60, nil, nil, .good), (-75, nil, nil, .moderate), (-90, nil, nil, .minimal),
        (nil, nil, nil, .unknown),
    ]

    @Test func wifi() {
        for (signal, expected, bitrate, grade) in Self.wifiCases {
            let quality = LinkQuality(
                source: .nl80211, signalDBm: signal, expectedThroughputKbps: expected, transmitBitrateKbps: bitrate)
            #expect(quality.grade == grade, "\(signal as Any) \(expected as Any) \(bitrate as Any)")
        }
    }

    typealias CellularCase = (technologies: UInt32, percent: UInt8?, grade: LinkQualityGrade)
    static let cellularCases: [CellularCase] = [
        (1 << 15, 70, .good), (1 << 14, 50, .good), (1 << 14 | 1 << 15, nil, .good), (1 << 14, 15, .moderate),
        (1 << 9, 80, .moderate), (1 << 5, 10, .minimal), (1 << 4, 90, .minimal), (1 << 4, 5, .minimal),
        (1 << 16, 90, .minimal), (1 << 17, 90, .minimal), (0, 90, .unknown),
        (1 << 0, 90, .unknown),  // POTS: no data link
    ]

    @Test func cellular() {
        for (technologies, percent, grade) in Self.cellularCases {
            let quality = LinkQuality(
                source: .modemManager, accessTechnologies: technologies, signalQualityPercent: percent)
            #expect(quality.grade == grade, "\(technologies) \(percent as Any)")
        }
    }

    @Test func theReportedGradeWins() {
        var quality = LinkQuality(source: .ethernet, speedMbps: 1000, isFullDuplex: true)
        quality.reportedGrade = .minimal
        #expect(quality.grade == .minimal)
    }

    @Test func smallMovesAreNotChanges() {
        let base = LinkQuality(
            source: .nl80211, signalDBm: -60, expectedThroughputKbps: 100_000, transmitBitrateKbps: 200_000)
        #expect(base.differsSignificantly(from: nil))
        var moved = base
        moved.signalDBm = -63
        moved.expectedThroughputKbps = 90_000
        #expect(!moved.differsSignificantly(from: base))
        moved.signalDBm = -65
        #expect(moved.differsSignificantly(from: base))
        moved = base
        moved.expectedThroughputKbps = 79_000
        #expect(moved.differsSignificantly(from: base))
        moved = base
        moved.transmitBitrateKbps = nil
        #expect(moved.differsSignificantly(from: base))
        let cell = LinkQuality(source: .modemManager, accessTechnologies: 1 << 14, signalQualityPercent: 60)
        var weaker = cell
        weaker.signalQualityPercent = 55
        #expect(!weaker.differsSignificantly(from: cell))
        weaker.signalQualityPercent = 15  // a new grade, whatever the step
        #expect(weaker.differsSignificantly(from: cell))
        weaker = cell
        weaker.accessTechnologies = 1 << 15
        #expect(weaker.differsSignificantly(from: cell))
    }

    @Test func thePathTakesThePreferredInterfacesAndATunnelItsCarriers() {
        let state = makeState(
            [makeLoopback(), makeLink(2, "eth0"), makeWifi(3), makeTunnel(5)],
            addresses: [makeAddress(2, "192.0.2.10"), makeAddress(3, "10.20.0.57"), makeAddress(5, "10.5.0.2")],
            routes: [
                makeRoute(2, via: "192.0.2.1", metric: 100), makeRoute(3, via: "10.20.0.1", metric: 600),
            ])
        var context = NetworkContext()
        let wired = LinkQuality(source: .ethernet, speedMbps: 1000, isFullDuplex: true)
        let wifi = LinkQuality(source: .nl80211, signalDBm: -80)
        context.linkQualities = [2: wired, 3: wifi]
        let evaluator = PathEvaluator()
        let path = evaluator.path(in: state, context: context)
        #expect(path.availableInterfaces.map(\.name) == ["eth0", "wlan0"])
        #expect(path.linkQuality == wired && path.linkQualityGrade == .good)
        #expect(path.availableInterfaces.map(\.linkQuality) == [wired, wifi])
        // The tunnel (no route of its own here) rides on eth0, the best usable interface.
        let tunnel = evaluator.interfaces(in: state, context: context).first { $0.link.name == "wg0" }
        #expect(tunnel?.linkQuality == wired)
        let wifiOnly = evaluator.path(
            in: state, context: context, parameters: PathParameters(requiredInterfaceKind: .wifi))
        #expect(wifiOnly.linkQualityGrade == .moderate)
        #expect(evaluator.path(in: state).linkQualityGrade == .unknown)
    }
}
